import type { Checkpoint } from '@agentlane/contract';
import { describe, expect, it } from 'vitest';
import { createMemorySaver, isCheckpointError, sessionStateOf } from '../src/index';

// What another runtime's reader would call corrupt is refused when it is written (a probe wrote each of these
// with one runtime and could not read it back with the other).

const envelope = (channels: unknown, extra: Partial<Checkpoint> = {}): Checkpoint =>
  ({
    id: '01J00000000000000000000001',
    sessionId: 'sess-refusals',
    stageId: 'post-turn',
    createdAt: '2026-01-01T00:00:00.000Z',
    schemaVersion: 1,
    channels,
    ...extra,
  }) as Checkpoint;

const lastValue = (value: unknown) => ({ kind: 'last_value', version: 1, value: { value } });

async function refusedWith(checkpoint: Checkpoint): Promise<string> {
  try {
    await createMemorySaver().put(checkpoint);
  } catch (error) {
    if (isCheckpointError(error)) return error.code;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('put refuses what no reader can read back', () => {
  it('a channel named __proto__ (it vanished into the prototype, without an error)', async () => {
    const channels = JSON.parse(`{"__proto__": ${JSON.stringify(lastValue(1))}}`);
    expect(await refusedWith(envelope(channels))).toBe('invalid_checkpoint');
  });

  it('a lone surrogate in a value or a key (no canonical JSON, no fingerprint)', async () => {
    expect(await refusedWith(envelope({ plan: lastValue('a\uD800b') }))).toMatch(/^invalid_/);
    expect(await refusedWith(envelope({ plan: lastValue({ '\uDC00': 1 }) }))).toMatch(/^invalid_/);
    // A pair is one character: taken.
    await createMemorySaver().put(envelope({ plan: lastValue('\uD83D\uDE00') }));
  });

  it('a barrier whose names are not sorted by UTF-16 code units, or name one writer twice', async () => {
    const barrier = (names: string[]) => ({ kind: 'named_barrier', version: 1, value: { names, seen: [] } });
    expect(await refusedWith(envelope({ b: barrier(['b', 'a']) }))).toBe('invalid_channel_value');
    expect(await refusedWith(envelope({ b: barrier(['a', 'a']) }))).toBe('invalid_channel_value');
    // By code point U+FF61 comes first; by UTF-16 code units the surrogate pair of U+1F600 does.
    expect(await refusedWith(envelope({ b: barrier(['｡', '😀']) }))).toBe('invalid_channel_value');
    await createMemorySaver().put(envelope({ b: barrier(['😀', '｡']) }));
  });

  it('a schemaVersion past 2^53 - 1 (a database integer does not hold it as written)', async () => {
    expect(await refusedWith(envelope({}, { schemaVersion: 2 ** 64 }))).toBe('invalid_checkpoint');
  });
});

describe("a channel's value in the session state", () => {
  it('an empty topic has none; a ready barrier gives its names', () => {
    const state = sessionStateOf({
      channels: {
        versionVector: { kind: 'topic', version: 1, value: { accumulate: true, items: [] } },
        plan: {
          kind: 'named_barrier',
          version: 2,
          value: { names: ['😀', '｡', 'b'], seen: ['😀', '｡', 'b'] },
        },
      },
    } as unknown as Checkpoint);
    expect(state.versionVector).toEqual({});
    expect(state.plan).toEqual(['b', '😀', '｡']);
  });
});
