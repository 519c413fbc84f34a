import type { JsonValue } from '@agentlane/contract';

/** The benchmark session: 500 turns, each appends one ~1 KB message and updates three small channels. */
export const TURNS = 500;
export const SAMPLE_AT = [100, 500] as const;

export interface TurnWrites {
  message: JsonValue;
  plan: JsonValue;
  vectorEntry: Record<string, number>;
  tokens: number;
}

/** Seeded pseudo-random words: text that compresses like prose, not like one repeated sentence (which TOAST would hide). */
function prose(seed: number, length: number): string {
  let state = seed >>> 0;
  const random = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const letters = 'etaoinshrdlcumwfgypbvkjxqz';
  let out = '';
  while (out.length < length) {
    const size = 2 + Math.floor(random() * 8);
    for (let i = 0; i < size; i++) out += letters[Math.floor(random() ** 2 * letters.length)];
    out += ' ';
  }
  return out.slice(0, length);
}

export function turnWrites(turn: number): TurnWrites {
  return {
    message: {
      id: `msg-${turn}`,
      role: turn % 2 ? 'user' : 'assistant',
      parts: [{ type: 'text', text: prose(turn, 960) }],
    },
    plan: [{ content: `step ${turn}`, status: 'in_progress', priority: 'medium' }],
    vectorEntry: { [turn % 2 ? 'server' : 'client']: turn },
    tokens: 37,
  };
}

export interface Timings {
  put: number[];
  get: number[];
  /** get-latest through a fresh reader with no warm state (agentlane only; LangGraph has no cache). */
  getCold?: number[];
  bytesAt: Record<number, number>;
}

export function percentile(samples: readonly number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}
