import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import {
  CANONICAL_EVENT_KINDS,
  CONTRACT_SCHEMAS,
  type ContractShapeName,
  parseShape,
  SCHEMA_BUNDLE_ID,
} from '../src/index';

// Every fixture goes through both validators: the TypeScript parser and Ajv (JSON Schema 2020-12) compiled
// from the committed bundle a non-TypeScript client would read. They must agree, on valid and on broken input.

interface Fixture {
  shape: ContractShapeName;
  description: string;
  expectErrorAt?: string;
  value: unknown;
}

const fixtures = join(import.meta.dirname, 'fixtures');
const bundle = JSON.parse(
  readFileSync(join(import.meta.dirname, '..', '..', '..', 'schema', 'agentlane.schema.json'), 'utf8'),
);

function load(folder: 'valid' | 'invalid'): [string, Fixture][] {
  return readdirSync(join(fixtures, folder))
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => [name, JSON.parse(readFileSync(join(fixtures, folder, name), 'utf8')) as Fixture]);
}

const ajv = new Ajv2020({ strict: true, allErrors: true });
addFormats(ajv);
ajv.addSchema(bundle);

function ajvVerdict(shape: string, value: unknown): boolean {
  const validate = ajv.getSchema(`${SCHEMA_BUNDLE_ID}#/$defs/${shape}`);
  if (!validate) throw new Error(`bundle has no $defs/${shape}`);
  return validate(value) as boolean;
}

const valid = load('valid');
const invalid = load('invalid');

describe('fixtures: TypeScript parser and JSON Schema agree', () => {
  it('compiles the committed bundle in Ajv strict mode', () => {
    for (const name of Object.keys(CONTRACT_SCHEMAS))
      expect(ajv.getSchema(`${SCHEMA_BUNDLE_ID}#/$defs/${name}`)).toBeTypeOf('function');
  });

  it.each(valid)('valid/%s is accepted by both', (_name, fixture) => {
    const parsed = parseShape(fixture.shape, fixture.value);
    expect(parsed.ok ? [] : parsed.errors).toEqual([]);
    expect(ajvVerdict(fixture.shape, fixture.value)).toBe(true);
  });

  it.each(invalid)('invalid/%s is rejected by both, with an error at the expected path', (_name, fixture) => {
    const parsed = parseShape(fixture.shape, fixture.value);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok && fixture.expectErrorAt)
      expect(parsed.errors.map((e) => e.path)).toContain(fixture.expectErrorAt);
    expect(ajvVerdict(fixture.shape, fixture.value)).toBe(false);
  });

  it('has a valid example event of every kind', () => {
    const kinds = new Set(
      valid
        .filter(([, f]) => f.shape === 'CanonicalEvent')
        .map(([, f]) => (f.value as { kind: string }).kind),
    );
    expect([...CANONICAL_EVENT_KINDS].filter((kind) => !kinds.has(kind))).toEqual([]);
  });

  it('covers rows, stream events, audit rows, checkpoints, vectors and session state', () => {
    const shapes = new Set([...valid, ...invalid].map(([, f]) => f.shape));
    for (const shape of [
      'DeliveryRow',
      'StreamEvent',
      'AuditableCall',
      'Checkpoint',
      'VersionVector',
      'SessionState',
    ]) {
      expect(shapes).toContain(shape);
    }
    const streamTypes = new Set(
      valid.filter(([, f]) => f.shape === 'StreamEvent').map(([, f]) => (f.value as { type: string }).type),
    );
    for (const type of [
      'stream.opened',
      'run.status',
      'run.canonicalized',
      'sync.conflict',
      'stream.closing',
    ])
      expect(streamTypes).toContain(type);
  });
});
