import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  fingerprintSessionState,
  parseCanonicalEvent,
  parseStreamEvent,
  SCHEMA_BUNDLE_ID,
  type SessionState,
} from '@agentlane/contract';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { BenchResult } from '../types';

// Trust-boundary cost of the contract: validating canonical events with the TypeBox-compiled parser, against
// Ajv compiled from the same committed JSON Schema bundle (the baseline a non-TypeScript-first stack would use).

const root = join(import.meta.dirname, '..', '..', '..');
const fixtures = join(root, 'packages', 'contract', 'test', 'fixtures', 'valid');

function fixture(name: string): unknown {
  return (JSON.parse(readFileSync(join(fixtures, name), 'utf8')) as { value: unknown }).value;
}

function rate(n: number, body: (i: number) => void): number {
  for (let i = 0; i < Math.min(n, 2000); i++) body(i); // warm-up (JIT, lazy compile)
  const t0 = performance.now();
  for (let i = 0; i < n; i++) body(i);
  return n / ((performance.now() - t0) / 1000);
}

export async function run(): Promise<BenchResult[]> {
  const events = readdirSync(fixtures)
    .filter((f) => f.startsWith('event-'))
    .sort()
    .map(fixture);
  const frames = events.map((event, i) => ({
    type: (event as { kind: string }).kind,
    deliverySeq: i + 1,
    revision: 1,
    provisional: false,
    event,
  }));
  const state = fixture('session-state.json') as SessionState;

  const ajv = new Ajv2020({ strict: true, allErrors: false });
  addFormats(ajv);
  ajv.addSchema(JSON.parse(readFileSync(join(root, 'schema', 'agentlane.schema.json'), 'utf8')));
  const ajvUnion = ajv.getSchema(`${SCHEMA_BUNDLE_ID}#/$defs/CanonicalEvent`);
  if (!ajvUnion) throw new Error('bundle has no CanonicalEvent');
  // The fair baseline dispatches on `kind` too, like parseCanonicalEvent does.
  const ajvByKind = events.map((event) => {
    const kind = (event as { kind: string }).kind;
    const stem = kind
      .split('.')
      .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
      .join('');
    const validate = ajv.getSchema(`${SCHEMA_BUNDLE_ID}#/$defs/${stem}Event`);
    if (!validate) throw new Error(`bundle has no ${stem}Event`);
    return validate;
  });

  const n = 50_000;
  let sink = 0;
  const ours = rate(n, (i) => {
    if (parseCanonicalEvent(events[i % events.length]).ok) sink++;
  });
  const baseline = rate(n, (i) => {
    if (ajvByKind[i % events.length]?.(events[i % events.length])) sink++;
  });
  const union = rate(n, (i) => {
    if (ajvUnion(events[i % events.length])) sink++;
  });
  const stream = rate(n, (i) => {
    if (parseStreamEvent(frames[i % frames.length]).ok) sink++;
  });
  const fingerprints = rate(5_000, () => {
    sink += fingerprintSessionState(state).length;
  });
  if (sink === 0) throw new Error('nothing validated');
  return [
    {
      name: 'contract: parseCanonicalEvent (all 30 kinds)',
      unit: 'events/s',
      value: Math.round(ours),
      ratio: ours / baseline,
      extra:
        `baseline Ajv 2020 on the committed bundle, dispatched by kind: ${Math.round(baseline)} events/s ` +
        `(Ajv on the whole anyOf union: ${Math.round(union)} events/s)`,
    },
    { name: 'contract: parseStreamEvent (canonical frames)', unit: 'frames/s', value: Math.round(stream) },
    {
      name: 'contract: fingerprintSessionState (RFC 8785 + sha256)',
      unit: 'ops/s',
      value: Math.round(fingerprints),
    },
  ];
}
