import type { HealthResponse } from '@agentlane/client';
import { useEffect, useState } from 'react';
import { client } from './api';

export type EngineInfo = NonNullable<HealthResponse['engines']>[number];

/** The engines the server is configured with (names, providers, labels), read once per page. */
let cached: Promise<EngineInfo[]> | undefined;

export function useEngines(): { engines: EngineInfo[] | undefined; error?: string } {
  const [engines, setEngines] = useState<EngineInfo[] | undefined>();
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    cached ??= client.health().then((h) => h.engines ?? []);
    cached.then(setEngines).catch((e: unknown) => {
      cached = undefined;
      setError(e instanceof Error ? e.message : String(e));
    });
  }, []);
  return error ? { engines, error } : { engines };
}

export function engineLabel(engines: EngineInfo[] | undefined, name: string): string {
  return engines?.find((e) => e.name === name)?.label ?? name;
}
