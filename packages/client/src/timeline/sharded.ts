/**
 * A copy-on-write map split into shards, so an immutable update copies only the shards it touches instead
 * of the whole table: applying one frame's events to a 20,000-row thread stays cheap, and every earlier
 * state stays intact (the reducer is pure).
 */
export interface Sharded<T> {
  readonly shards: readonly Readonly<Record<string, T>>[];
}

const SHARD_BITS = 8;
const SHARD_COUNT = 1 << SHARD_BITS;

function shardOf(key: string): number {
  // FNV-1a: cheap and spreads similar ids (ev1, ev2, ...) across shards.
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    hash ^= key.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) & (SHARD_COUNT - 1);
}

export function emptySharded<T>(): Sharded<T> {
  return { shards: Array.from({ length: SHARD_COUNT }, () => ({})) };
}

export function shardedGet<T>(map: Sharded<T>, key: string): T | undefined {
  const shard = map.shards[shardOf(key)]!;
  return Object.hasOwn(shard, key) ? shard[key] : undefined;
}

export function shardedValues<T>(map: Sharded<T>): T[] {
  return map.shards.flatMap((shard) => Object.values(shard));
}

/** Batches writes against a base map; `done()` returns the new map sharing untouched shards. */
export class ShardedWriter<T> {
  private shards: Record<string, T>[] | undefined;
  private readonly copied = new Set<number>();

  constructor(private readonly base: Sharded<T>) {}

  get(key: string): T | undefined {
    const shard = (this.shards ?? this.base.shards)[shardOf(key)]!;
    return Object.hasOwn(shard, key) ? shard[key] : undefined;
  }

  private writable(key: string): Record<string, T> {
    const index = shardOf(key);
    this.shards ??= [...this.base.shards] as Record<string, T>[];
    if (!this.copied.has(index)) {
      this.shards[index] = { ...this.shards[index] };
      this.copied.add(index);
    }
    return this.shards[index]!;
  }

  set(key: string, value: T): void {
    this.writable(key)[key] = value;
  }

  delete(key: string): void {
    if (this.get(key) !== undefined) delete this.writable(key)[key];
  }

  done(): Sharded<T> {
    return this.shards ? { shards: this.shards } : this.base;
  }
}

export function shardedEntries<T>(map: Sharded<T>): [string, T][] {
  return map.shards.flatMap((shard) => Object.entries(shard));
}
