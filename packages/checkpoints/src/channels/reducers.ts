import type { JsonValue } from '@agentlane/contract';
import { CheckpointError } from '../errors.js';
import { isPlainObject } from '../json.js';

/**
 * A named, pure reduction. Only the name travels in a snapshot, so every runtime that restores it must
 * register a reducer with the same name and behaviour; code never travels.
 */
export interface Reducer {
  /** The starting value of a channel that was never written. */
  identity(): JsonValue;
  reduce(current: JsonValue, update: JsonValue): JsonValue;
}

function refuse(name: string, why: string): never {
  throw new CheckpointError('invalid_update', `reducer "${name}": ${why}`);
}

function numberOf(name: string, value: JsonValue): number {
  return typeof value === 'number' ? value : refuse(name, 'needs numbers');
}

function objectOf(name: string, value: JsonValue): Record<string, JsonValue> {
  return isPlainObject(value) ? (value as Record<string, JsonValue>) : refuse(name, 'needs objects');
}

const BUILTIN: Record<string, Reducer> = {
  /** Concatenates: an array update appends each element, any other update appends itself. */
  append: {
    identity: () => [],
    reduce: (current, update) => {
      const list = Array.isArray(current) ? current : refuse('append', 'current value is not an array');
      return Array.isArray(update) ? [...list, ...update] : [...list, update];
    },
  },
  /** Shallow object merge; the update's keys win. */
  merge: {
    identity: () => ({}),
    reduce: (current, update) => ({ ...objectOf('merge', current), ...objectOf('merge', update) }),
  },
  sum: { identity: () => 0, reduce: (c, u) => numberOf('sum', c) + numberOf('sum', u) },
  max: {
    identity: () => null,
    reduce: (c, u) => (c === null ? numberOf('max', u) : Math.max(numberOf('max', c), numberOf('max', u))),
  },
  min: {
    identity: () => null,
    reduce: (c, u) => (c === null ? numberOf('min', u) : Math.min(numberOf('min', c), numberOf('min', u))),
  },
  /** Element-wise max of two version vectors (the contract's `mergeVectors`). */
  vector_merge: {
    identity: () => ({}),
    reduce: (current, update) => {
      // A Map, then Object.fromEntries: own entries only, so a client named `__proto__` is an entry too.
      const out = new Map<string, JsonValue>(Object.entries(objectOf('vector_merge', current)));
      for (const [client, version] of Object.entries(objectOf('vector_merge', update))) {
        const mine = out.get(client);
        const theirs = numberOf('vector_merge', version);
        out.set(client, typeof mine === 'number' ? Math.max(mine, theirs) : theirs);
      }
      return Object.fromEntries(out);
    },
  },
};

const registry = new Map<string, Reducer>(Object.entries(BUILTIN));

/** Adds a reducer under a name; re-registering a built-in name is refused so snapshots stay portable. */
export function registerReducer(name: string, reducer: Reducer): void {
  if (!/^[a-z][a-z0-9_.:-]*$/.test(name)) {
    throw new CheckpointError('invalid_argument', `reducer name "${name}" must be lower-case [a-z0-9_.:-]`);
  }
  if (Object.hasOwn(BUILTIN, name))
    throw new CheckpointError('invalid_argument', `"${name}" is a built-in reducer`);
  registry.set(name, reducer);
}

export function getReducer(name: string): Reducer {
  const reducer = registry.get(name);
  if (!reducer) throw new CheckpointError('unknown_reducer', `no reducer named "${name}" is registered`);
  return reducer;
}

export function reducerNames(): string[] {
  return [...registry.keys()].sort();
}
