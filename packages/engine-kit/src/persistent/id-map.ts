import { createHash } from 'node:crypto';
import type { JsonValue } from '@agentlane/contract';

/**
 * A persistent map from ids to values, in plain JSON: a hash trie of 16-way branches (arrays, `null` for an
 * empty slot) over leaves of at most LEAF entries. A change copies the nodes on one path — at most 16 slots a
 * level, a level per 4 bits of the key's hash, so a bounded number whatever the size — and shares the rest;
 * every older version stays as it was. A translator's state is replaced, never mutated (a dropped step keeps
 * its prior state), and translators used to copy whole records of tool calls, approvals or open requests on
 * every frame: a turn with 3,000 tool calls took 15 s to translate, quadratic in the calls.
 *
 * The hash is sha256: an engine or a model chooses the ids, and ids made to collide on a weak hash would pile
 * up in one leaf. `idEntries` lists the entries in the order `Object.keys` would list a record's keys (array
 * indices ascending, then the others in the order they were first set), so what a translator emits while
 * walking a map is what it emitted walking the record this replaced.
 */
export type IdMap<V extends JsonValue> = {
  size: number;
  /** The insertion order the next new key gets (absent in maps made before deletes existed: `size`). */
  next?: number;
  root: IdNode<V>;
};

/** A branch (slot = the next 4 bits of the hash) or a leaf of [key, value, insertion order] entries. */
type IdNode<V extends JsonValue> = (IdNode<V> | null)[] | { e: IdEntry<V>[] };
type IdEntry<V extends JsonValue> = [key: string, value: V, order: number];

const LEAF = 8;
const FANOUT = 16;
/** 64 levels of 4 bits: the whole sha256. Past it (never, in practice) a leaf grows. */
const MAX_LEVEL = 64;

export function emptyIdMap<V extends JsonValue>(): IdMap<V> {
  return { size: 0, root: { e: [] } };
}

function hashOf(key: string): Buffer {
  return createHash('sha256').update(key).digest();
}

function slotOf(hash: Buffer, level: number): number {
  const byte = hash[level >> 1] as number;
  return level & 1 ? byte & 15 : byte >> 4;
}

export function idGet<V extends JsonValue>(map: IdMap<V> | undefined, key: string): V | undefined {
  if (!map || map.size === 0) return undefined;
  const hash = hashOf(key);
  let node: IdNode<V> | null = map.root;
  for (let level = 0; node; level++) {
    if (!Array.isArray(node)) return node.e.find((e) => e[0] === key)?.[1];
    node = node[slotOf(hash, level)] ?? null;
  }
  return undefined;
}

export function idHas<V extends JsonValue>(map: IdMap<V> | undefined, key: string): boolean {
  return idGet(map, key) !== undefined;
}

/** The map with `key` set to `value` (a key set again keeps its place in the order). */
export function idSet<V extends JsonValue>(map: IdMap<V> | undefined, key: string, value: V): IdMap<V> {
  const from = map ?? emptyIdMap<V>();
  const order = from.next ?? from.size;
  const entry: IdEntry<V> = [key, value, order];
  const put = insert(from.root, entry, hashOf(key), 0);
  if (!put.added) return { ...from, root: put.node };
  return { size: from.size + 1, next: order + 1, root: put.node };
}

/** The map without `key` (the same map when it has none). */
export function idDelete<V extends JsonValue>(map: IdMap<V> | undefined, key: string): IdMap<V> {
  const from = map ?? emptyIdMap<V>();
  if (from.size === 0) return from;
  const node = remove(from.root, key, hashOf(key), 0);
  if (node === undefined) return from;
  return { size: from.size - 1, next: from.next ?? from.size, root: node };
}

/** The node without `key`, or undefined when it has no such key (nothing is copied then). */
function remove<V extends JsonValue>(
  node: IdNode<V>,
  key: string,
  hash: Buffer,
  level: number,
): IdNode<V> | undefined {
  if (Array.isArray(node)) {
    const slot = slotOf(hash, level);
    const child = node[slot] ?? null;
    const changed = child ? remove(child, key, hash, level + 1) : undefined;
    if (changed === undefined) return undefined;
    const copy = node.slice();
    copy[slot] = changed;
    return copy;
  }
  const at = node.e.findIndex((e) => e[0] === key);
  if (at < 0) return undefined;
  return { e: [...node.e.slice(0, at), ...node.e.slice(at + 1)] };
}

function insert<V extends JsonValue>(
  node: IdNode<V>,
  entry: IdEntry<V>,
  hash: Buffer,
  level: number,
): { node: IdNode<V>; added: boolean } {
  if (Array.isArray(node)) {
    const slot = slotOf(hash, level);
    const child = node[slot] ?? null;
    const put = child ? insert(child, entry, hash, level + 1) : { node: { e: [entry] }, added: true };
    const copy = node.slice();
    copy[slot] = put.node;
    return { node: copy, added: put.added };
  }
  const at = node.e.findIndex((e) => e[0] === entry[0]);
  if (at >= 0) {
    const e = node.e.slice();
    e[at] = [entry[0], entry[1], (node.e[at] as IdEntry<V>)[2]];
    return { node: { e }, added: false };
  }
  if (node.e.length < LEAF || level >= MAX_LEVEL) return { node: { e: [...node.e, entry] }, added: true };
  // A full leaf becomes a branch over its entries, by their hash's next 4 bits; then the entry goes in.
  let branch: IdNode<V> = new Array<IdNode<V> | null>(FANOUT).fill(null);
  for (const old of node.e) branch = insert(branch, old, hashOf(old[0]), level).node;
  return { node: insert(branch, entry, hash, level).node, added: true };
}

const ARRAY_INDEX = /^(?:0|[1-9][0-9]{0,9})$/;
const isArrayIndex = (key: string) => ARRAY_INDEX.test(key) && Number(key) < 2 ** 32 - 1;

/** Every [key, value], in the order Object.keys lists a record's keys (see above). */
export function idEntries<V extends JsonValue>(map: IdMap<V> | undefined): [string, V][] {
  const all: IdEntry<V>[] = [];
  const walk = (node: IdNode<V> | null) => {
    if (!node) return;
    if (Array.isArray(node)) for (const child of node) walk(child);
    else all.push(...node.e);
  };
  if (map) walk(map.root);
  const rank = (e: IdEntry<V>) => (isArrayIndex(e[0]) ? Number(e[0]) - 2 ** 32 : e[2]);
  return all.sort((a, b) => rank(a) - rank(b)).map((e) => [e[0], e[1]]);
}

export function idKeys<V extends JsonValue>(map: IdMap<V> | undefined): string[] {
  return idEntries(map).map((e) => e[0]);
}
