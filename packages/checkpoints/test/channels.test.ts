import type { JsonValue } from '@agentlane/contract';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  BinaryOpAggregateChannel,
  ChannelSet,
  type ChannelWrite,
  DataChannel,
  EphemeralValueChannel,
  fingerprintCheckpoint,
  isCheckpointError,
  LastValueChannel,
  NamedBarrierChannel,
  parseChannels,
  registerReducer,
  TopicChannel,
} from '../src/index';

function expectCode(code: string, fn: () => unknown): void {
  try {
    fn();
  } catch (error) {
    expect(isCheckpointError(error) ? error.code : error).toBe(code);
    return;
  }
  throw new Error(`expected ${code}`);
}

describe('channel semantics', () => {
  it('last_value keeps the last write and refuses two writes in one step', () => {
    const set = new ChannelSet({ v: new LastValueChannel() });
    expectCode('empty_channel', () => set.channel('v').get());
    set.step([{ channel: 'v', value: 1 }]);
    set.step([{ channel: 'v', value: 2 }]);
    expect(set.channel('v').get()).toBe(2);
    expect(set.channel('v').version).toBe(2);
    expectCode('invalid_update', () =>
      set.step([
        { channel: 'v', value: 3 },
        { channel: 'v', value: 4 },
      ]),
    );
    // The refused step changed nothing.
    expect(set.channel('v').get()).toBe(2);
    expect(set.channel('v').version).toBe(2);
  });

  it('binary_op_aggregate folds with a named reducer that travels in the snapshot', () => {
    const set = new ChannelSet({
      log: new BinaryOpAggregateChannel('append'),
      total: new BinaryOpAggregateChannel('sum'),
      meta: new BinaryOpAggregateChannel('merge'),
      vv: new BinaryOpAggregateChannel('vector_merge'),
    });
    set.step([
      { channel: 'log', value: 'a' },
      { channel: 'log', value: ['b', 'c'] },
      { channel: 'total', value: 2 },
      { channel: 'total', value: 3 },
      { channel: 'meta', value: { a: 1 } },
      { channel: 'vv', value: { x: 2, y: 1 } },
    ]);
    set.step([
      { channel: 'meta', value: { b: 2 } },
      { channel: 'vv', value: { x: 1, y: 5 } },
    ]);
    expect(set.channel('log').get()).toEqual(['a', 'b', 'c']);
    expect(set.channel('total').get()).toBe(5);
    expect(set.channel('meta').get()).toEqual({ a: 1, b: 2 });
    expect(set.channel('vv').get()).toEqual({ x: 2, y: 5 });
    expect(set.snapshot().log).toEqual({
      kind: 'binary_op_aggregate',
      version: 1,
      value: { reducer: 'append', value: ['a', 'b', 'c'] },
    });
    expectCode('unknown_reducer', () =>
      ChannelSet.restore({
        x: { kind: 'binary_op_aggregate', version: 1, value: { reducer: 'eval', value: 1 } },
      }),
    );
    expectCode('invalid_update', () => set.step([{ channel: 'total', value: 'two' }]));
    expect(set.channel('total').get()).toBe(5);
  });

  it('a registered reducer restores by name', () => {
    registerReducer('test.concat_text', { identity: () => '', reduce: (a, b) => `${String(a)}${String(b)}` });
    const set = new ChannelSet({ t: new BinaryOpAggregateChannel('test.concat_text') });
    set.step([{ channel: 't', value: 'ab' }]);
    set.step([{ channel: 't', value: 'c' }]);
    expect(ChannelSet.restore(set.snapshot()).channel('t').get()).toBe('abc');
    expectCode('invalid_argument', () => registerReducer('append', { identity: () => 0, reduce: (a) => a }));
  });

  it('topic accumulates, or holds only the last step when accumulate is false', () => {
    const set = new ChannelSet({ all: new TopicChannel(), once: new TopicChannel({ accumulate: false }) });
    set.step([
      { channel: 'all', value: 1 },
      { channel: 'once', value: 1 },
      { channel: 'once', value: 2 },
    ]);
    set.step([{ channel: 'all', value: [2, 3] }]);
    expect(set.channel('all').get()).toEqual([1, [2, 3]]);
    expect(set.channel('once').isAvailable()).toBe(false);
    set.step([{ channel: 'once', value: 9 }]);
    expect(set.channel('once').get()).toEqual([9]);
  });

  it('ephemeral_value is visible for one step only', () => {
    const set = new ChannelSet({ e: new EphemeralValueChannel(), other: new LastValueChannel() });
    set.step([{ channel: 'e', value: 'now' }]);
    expect(set.channel('e').get()).toBe('now');
    set.step([{ channel: 'other', value: 1 }]);
    expect(set.channel('e').isAvailable()).toBe(false);
    expect(set.channel('e').version).toBe(2);
  });

  it('named_barrier is ready once every named writer wrote, and resets when consumed', () => {
    const set = new ChannelSet({ b: new NamedBarrierChannel(['a', 'b']) });
    set.step([{ channel: 'b', value: 'a' }]);
    expect(set.channel('b').isAvailable()).toBe(false);
    expectCode('empty_channel', () => set.channel('b').get());
    set.step([{ channel: 'b', value: 'b' }]);
    expect(set.channel('b').get()).toEqual(['a', 'b']);
    expect(set.channel('b').consume()).toBe(true);
    expect(set.channel('b').isAvailable()).toBe(false);
    expectCode('invalid_update', () => set.step([{ channel: 'b', value: 'stranger' }]));
  });

  it('data_channel evicts the least recently written key past its capacity', () => {
    const set = new ChannelSet({ d: new DataChannel(2) });
    set.step([
      { channel: 'd', value: { key: 'a', value: 1 } },
      { channel: 'd', value: { key: 'b', value: 2 } },
    ]);
    set.step([{ channel: 'd', value: { key: 'a', value: 3 } }]);
    set.step([{ channel: 'd', value: { key: 'c', value: 4 } }]);
    expect(set.channel('d').get()).toEqual({ a: 3, c: 4 });
    set.step([{ channel: 'd', value: { key: 'a', delete: true } }]);
    expect(set.channel('d').get()).toEqual({ c: 4 });
    expect(ChannelSet.restore(set.snapshot()).snapshot()).toEqual(set.snapshot());
    expectCode('invalid_update', () => set.step([{ channel: 'd', value: 'no key' }]));
  });

  it('a snapshot value that is not plain JSON is refused, whatever the kind', () => {
    const bad = [Number.NaN, new Date(), () => 1, undefined];
    for (const v of bad) {
      for (const snapshot of [
        { kind: 'last_value', version: 1, value: { value: v } },
        { kind: 'topic', version: 1, value: { accumulate: true, items: [v] } },
        { kind: 'binary_op_aggregate', version: 1, value: { reducer: 'append', value: [v] } },
        { kind: 'ephemeral_value', version: 1, value: { value: { deep: [v] } } },
        { kind: 'data_channel', version: 1, value: { capacity: 2, entries: [['k', v]] } },
      ]) {
        expectCode('invalid_channel_value', () => parseChannels({ c: snapshot }));
      }
    }
  });

  it('a write to an unknown channel is refused', () => {
    expectCode('invalid_update', () => new ChannelSet().step([{ channel: 'ghost', value: 1 }]));
  });
});

const jsonLeaf = fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean(), fc.constant(null));
const jsonValue: fc.Arbitrary<JsonValue> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    jsonLeaf,
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 4 }), tie('value'), { maxKeys: 3 }),
  ),
})).value as fc.Arbitrary<JsonValue>;

function freshSet(): ChannelSet {
  return new ChannelSet({
    last: new LastValueChannel(),
    log: new BinaryOpAggregateChannel('append'),
    sum: new BinaryOpAggregateChannel('sum'),
    merged: new BinaryOpAggregateChannel('merge'),
    topic: new TopicChannel(),
    burst: new TopicChannel({ accumulate: false }),
    eph: new EphemeralValueChannel(),
    barrier: new NamedBarrierChannel(['x', 'y', 'z']),
    data: new DataChannel(3),
  });
}

const writeArb: fc.Arbitrary<ChannelWrite> = fc.oneof<fc.Arbitrary<ChannelWrite>[]>(
  jsonValue.map((value) => ({ channel: 'last', value })),
  jsonValue.map((value) => ({ channel: 'log', value })),
  fc.integer({ min: -1000, max: 1000 }).map((value) => ({ channel: 'sum', value })),
  fc
    .dictionary(fc.string({ maxLength: 3 }), jsonValue, { maxKeys: 2 })
    .map((value): ChannelWrite => ({ channel: 'merged', value: value as JsonValue })),
  jsonValue.map((value) => ({ channel: 'topic', value })),
  jsonValue.map((value) => ({ channel: 'burst', value })),
  jsonValue.map((value) => ({ channel: 'eph', value })),
  fc.constantFrom('x', 'y', 'z').map((value) => ({ channel: 'barrier', value })),
  fc.tuple(fc.constantFrom('k1', 'k2', 'k3', 'k4', 'k5'), jsonValue, fc.boolean()).map(
    ([key, value, del]): ChannelWrite => ({
      channel: 'data',
      value: del ? { key, delete: true } : { key, value },
    }),
  ),
);

describe('snapshot → restore → snapshot', () => {
  it('is identical and keeps the fingerprint, for random write sequences', () => {
    fc.assert(
      fc.property(fc.array(fc.array(writeArb, { maxLength: 6 }), { maxLength: 12 }), (steps) => {
        const set = freshSet();
        const versions: Record<string, number> = {};
        for (const writes of steps) {
          try {
            set.step(writes);
          } catch (error) {
            // Refused steps (two writes to a last_value) must leave the set as it was; keep going.
            if (!isCheckpointError(error, 'invalid_update')) throw error;
          }
          if (set.channel('barrier').isAvailable()) set.channel('barrier').consume();
          for (const [name, snap] of Object.entries(set.snapshot())) {
            expect(snap.version).toBeGreaterThanOrEqual(versions[name] ?? 0);
            versions[name] = snap.version;
          }
        }
        const before = set.snapshot();
        const restored = ChannelSet.restore(JSON.parse(JSON.stringify(before)));
        const after = restored.snapshot();
        expect(after).toEqual(before);
        expect(JSON.stringify(after)).toBe(JSON.stringify(before));
        expect(fingerprintCheckpoint({ channels: after })).toBe(fingerprintCheckpoint({ channels: before }));
        // The restored set keeps behaving like the original.
        const next: ChannelWrite[] = [
          { channel: 'sum', value: 1 },
          { channel: 'topic', value: 'n' },
        ];
        set.step(next);
        restored.step(next);
        expect(restored.snapshot()).toEqual(set.snapshot());
      }),
      { numRuns: 150 },
    );
  });
});
