import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CONTRACT_SCHEMAS,
  type ContractShapeName,
  formatIssues,
  parseAuditableCall,
  parseCanonicalEvent,
  parseDeliveryRow,
  parseEventOf,
  parsePayload,
  parseShape,
  parseStreamEvent,
  SCHEMA_VERSION,
} from '../src/index';
import { validate as validateSchema } from '../src/parse/validate';
import deltaFixture from './fixtures/valid/event-message-delta.json';
import openedFixture from './fixtures/valid/stream-opened.json';

const delta = deltaFixture.value;

describe('parse functions', () => {
  it('return the typed value for a valid event', () => {
    const result = parseCanonicalEvent(delta);
    expect(result.ok).toBe(true);
    if (result.ok && result.value.kind === 'message.delta')
      expect(result.value.payload.delta).toBe(delta.payload.delta);
  });

  it('name the JSON path and the rule of each problem, explaining the union by its kind', () => {
    const result = parseCanonicalEvent({ ...delta, payload: { messageId: 'm', delta: 5, extra: true } });
    expect(result).toEqual({
      ok: false,
      errors: expect.arrayContaining([
        { path: '$.payload.partId', message: 'is required', rule: 'required' },
        { path: '$.payload.delta', message: 'must be string', rule: 'type' },
        {
          path: '$.payload.extra',
          message: expect.stringContaining('not a known field'),
          rule: 'additionalProperties',
        },
      ]),
    });
    // Only the branch the value meant is explained, not thirty others.
    if (!result.ok) expect(result.errors).toHaveLength(3);
  });

  it('report an unknown kind once, listing the allowed kinds', () => {
    const result = parseCanonicalEvent({ ...delta, kind: 'message.exploded' });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.errors).toHaveLength(1);
      expect(result.errors[0]?.path).toBe('$.kind');
      expect(result.errors[0]?.message).toContain('"message.delta"');
    }
  });

  it('explain nested unions (an event inside a delivery row) by their discriminator', () => {
    const result = parseDeliveryRow({
      threadId: 't',
      deliverySeq: 1,
      eventId: 'e',
      revision: 1,
      runId: 'r',
      seq: 0,
      kind: 'turn.completed',
      schemaVersion: 1,
      provisional: false,
      event: { ...delta, kind: 'turn.completed', payload: { stopReason: 'bored' } },
    });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors.map((e) => e.path)).toEqual(['$.event.payload.stopReason']);
  });

  it('explain nullable columns by the types they allow', () => {
    const result = parseAuditableCall({ http_status: '200' });
    expect(result.ok).toBe(false);
    if (!result.ok)
      expect(result.errors).toContainEqual({
        path: '$.http_status',
        message: 'must be integer or null',
        rule: 'anyOf',
      });
  });

  it('tolerate every schemaVersion up to the current one and refuse newer ones', () => {
    expect(parseCanonicalEvent({ ...delta, schemaVersion: SCHEMA_VERSION }).ok).toBe(true);
    const newer = parseCanonicalEvent({ ...delta, schemaVersion: SCHEMA_VERSION + 1 });
    expect(newer.ok).toBe(false);
  });

  it('parse one kind or one payload directly', () => {
    expect(parseEventOf('message.delta', delta).ok).toBe(true);
    expect(parseEventOf('turn.started', delta).ok).toBe(false);
    expect(parsePayload('harness.error', { code: 'x', message: 'y', fatal: false }).ok).toBe(true);
    const missing = parsePayload('harness.error', { code: 'x', message: 'y' });
    expect(missing.ok ? '' : formatIssues(missing.errors)).toBe('$.fatal: is required');
  });

  it('never throw, whatever the input, for every shape', () => {
    const names = Object.keys(CONTRACT_SCHEMAS) as ContractShapeName[];
    fc.assert(
      fc.property(fc.constantFrom(...names), fc.anything(), (name, value) => {
        const result = parseShape(name, value);
        if (!result.ok) {
          expect(result.errors.length).toBeGreaterThan(0);
          for (const issue of result.errors) expect(issue.path.startsWith('$')).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('never throw on hostile objects (throwing proxies and getters)', () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('get');
        },
        ownKeys() {
          throw new Error('ownKeys');
        },
        has() {
          throw new Error('has');
        },
        getOwnPropertyDescriptor() {
          throw new Error('descriptor');
        },
      },
    );
    const getter = {
      ...delta,
      get payload(): unknown {
        throw new Error('getter');
      },
    };
    for (const value of [hostile, getter, { ...delta, identity: hostile }]) {
      expect(() => parseCanonicalEvent(value)).not.toThrow();
      expect(parseCanonicalEvent(value).ok).toBe(false);
      expect(() => parseStreamEvent(value)).not.toThrow();
    }
  });
});

describe('parseStreamEvent', () => {
  it('skips a frame of an unknown type instead of failing (forward compatibility)', () => {
    const result = parseStreamEvent({ type: 'subagent.spawned', whatever: [1, 2, 3] });
    expect(result).toEqual({ ok: true, value: null, skipped: true, type: 'subagent.spawned' });
  });

  it('a reader loop keeps going past unknown types and keeps the known ones', () => {
    const frames: unknown[] = [
      openedFixture.value,
      { type: 'presence.changed', who: 'bob' },
      { type: 'message.delta', deliverySeq: 5, revision: 1, provisional: true, event: delta },
      { type: 'stream.closing', reason: 'shutdown', retryMs: 500 },
    ];
    const kept: string[] = [];
    for (const frame of frames) {
      const result = parseStreamEvent(frame);
      if (result.ok && result.value) kept.push(result.value.type);
    }
    expect(kept).toEqual(['stream.opened', 'message.delta', 'stream.closing']);
  });

  it('rejects a canonical frame whose type is not its event kind', () => {
    const result = parseStreamEvent({
      type: 'tool.started',
      deliverySeq: 5,
      revision: 1,
      provisional: true,
      event: delta,
    });
    expect(result).toEqual({
      ok: false,
      errors: [{ path: '$', message: 'event.kind must equal type ("tool.started")', rule: 'if' }],
    });
  });

  it('still rejects a malformed frame of a known type, and a frame without a type', () => {
    const bad = parseStreamEvent({ type: 'stream.opened', threadId: 't', after: -1, headDeliverySeq: 0 });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.errors[0]?.path).toBe('$.after');
    expect(parseStreamEvent({ threadId: 't' }).ok).toBe(false);
    expect(parseStreamEvent(null).ok).toBe(false);
  });
});

describe('fast paths', () => {
  it('give the same verdict as the full schema for every fixture', () => {
    for (const folder of ['valid', 'invalid']) {
      const dir = join(import.meta.dirname, 'fixtures', folder);
      for (const name of readdirSync(dir)) {
        const fixture = JSON.parse(readFileSync(join(dir, name), 'utf8')) as {
          shape: ContractShapeName;
          value: unknown;
        };
        const full = validateFull(fixture.shape, fixture.value);
        expect(parseShape(fixture.shape, fixture.value).ok, `${folder}/${name}`).toBe(full);
        if (
          fixture.shape === 'StreamEvent' ||
          fixture.shape === 'DeliveryRow' ||
          fixture.shape === 'CanonicalEvent'
        ) {
          expect(full).toBe(folder === 'valid');
        }
      }
    }
  });

  it('give the same verdict as the full schema on mutated events and frames', () => {
    const kinds = ['message.delta', 'tool.started', 'harness.error', 'nope', 1, undefined];
    const mutated = fc.record({
      kind: fc.constantFrom(...kinds),
      type: fc.constantFrom(...kinds, 'stream.opened'),
      payload: fc.constantFrom(delta.payload, {}, { code: 'c', message: 'm', fatal: true }),
      drop: fc.constantFrom('none', 'eventId', 'identity'),
    });
    fc.assert(
      fc.property(mutated, ({ kind, type, payload, drop }) => {
        const event: Record<string, unknown> = { ...delta, kind, payload };
        if (drop !== 'none') delete event[drop];
        const frame = { type, deliverySeq: 1, revision: 1, provisional: false, event };
        for (const [shape, value] of [
          ['CanonicalEvent', event],
          ['CanonicalEventDraft', { kind, payload }],
          ['StreamEvent', frame],
          ['CanonicalStreamEvent', frame],
        ] as const) {
          expect(parseShape(shape, value).ok).toBe(validateFull(shape, value));
        }
      }),
      { numRuns: 300 },
    );
  });
});

function validateFull(shape: ContractShapeName, value: unknown): boolean {
  return validateSchema(CONTRACT_SCHEMAS[shape], value).ok;
}
