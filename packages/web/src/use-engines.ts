import type { HealthResponse } from '@agentlane/client';
import { useEffect, useState } from 'react';
import { client } from './api';

export type EngineInfo = NonNullable<HealthResponse['engines']>[number];

/** An engine the server found but did not offer: its start probe failed (`checks["engine:<name>"]`). */
export interface UnavailableEngine {
  name: string;
  reason: string;
}

interface EngineList {
  engines: EngineInfo[];
  unavailable: UnavailableEngine[];
}

/** The engines the server is configured with (names, providers, labels), read once per page. */
let cached: Promise<EngineList> | undefined;

export function useEngines(): {
  engines: EngineInfo[] | undefined;
  unavailable: UnavailableEngine[];
  error?: string;
} {
  const [list, setList] = useState<EngineList | undefined>();
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    cached ??= client.health().then((h) => ({
      engines: h.engines ?? [],
      unavailable: Object.entries(h.checks ?? {}).flatMap(([key, check]) =>
        key.startsWith('engine:') && check.status !== 'ok'
          ? [{ name: key.slice('engine:'.length), reason: check.error ?? check.status }]
          : [],
      ),
    }));
    cached.then(setList).catch((e: unknown) => {
      cached = undefined;
      setError(e instanceof Error ? e.message : String(e));
    });
  }, []);
  const out = { engines: list?.engines, unavailable: list?.unavailable ?? [] };
  return error ? { ...out, error } : out;
}

export function engineLabel(engines: EngineInfo[] | undefined, name: string): string {
  return engines?.find((e) => e.name === name)?.label ?? name;
}
