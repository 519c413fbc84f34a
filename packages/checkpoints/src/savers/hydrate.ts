import type { ChannelSnapshot } from '@agentlane/contract';
import { applyDelta, type CheckpointDelta, parseDelta } from '../delta.js';
import { CheckpointError } from '../errors.js';
import { checkingOwnRows, isPlainObject } from '../json.js';
import { parseChannels } from '../validate.js';
import { appendTarget } from './base-layout.js';
import type { Hydrated } from './hydrated-cache.js';
import type { ChainLink } from './rows.js';

export function corruptRow(row: { checkpointId: string }, why: string): never {
  throw new CheckpointError('corrupt_row', `checkpoint ${row.checkpointId}: ${why}`, row.checkpointId);
}

/**
 * The channel map of `chain[0]` from its chain (newest first, ending at a full row; the caller checks that),
 * or undefined when anything is off: then `strictFold` over the rows' text says which row is at fault.
 *
 * Rows are parsed once and their operations applied with only
 * the checks applying needs; the resulting map is then validated once, as a whole. That is what the reader
 * hands out, so nothing it returns goes unchecked, and a chain of k deltas no longer validates k snapshots
 * that later rows overwrite (most of a cold read's time). A base read through its layout skips only the
 * deep JSON walk of that validation (json.ts, checkingOwnRows).
 */
export function foldChain(chain: readonly ChainLink[]): Folded | undefined {
  try {
    const folded = fastFold(chain);
    if (!folded) return undefined;
    const check = () => parseChannels(folded.channels);
    // A base read through its layout and its head were written by this saver (json.ts, checkingOwnRows).
    const own = (chain[chain.length - 1] as ChainLink).parsed !== undefined;
    return { channels: own ? checkingOwnRows(check) : check(), since: folded.since };
  } catch {
    return undefined;
  }
}

export interface Folded {
  channels: Record<string, ChannelSnapshot>;
  /** The chain's deltas merged into one, from the base's channels to these (what a head row stores). */
  since: CheckpointDelta;
}

/**
 * The merged delta of a child: its parent's `since` followed by the child's own delta. New objects only:
 * the parent's is shared (cached) and stays as it is.
 */
export function mergeSince(
  parentSince: CheckpointDelta,
  delta: CheckpointDelta,
  child: Record<string, ChannelSnapshot>,
): CheckpointDelta {
  const out: CheckpointDelta = { ...parentSince };
  for (const [name, op] of Object.entries(delta)) {
    const prev = out[name];
    if (op.op !== 'append' || !prev) out[name] = op;
    else if (prev.op === 'append')
      out[name] = { op: 'append', version: op.version, items: [...prev.items, ...op.items] };
    else out[name] = { op: 'put', snapshot: child[name] as ChannelSnapshot };
  }
  return out;
}

/**
 * The state a put caches for a child of a cached parent, rebuilt from stored text (never the caller's
 * objects) so that it is what a later read hydrates: the parent's state plus the child's delta re-parsed
 * (`deltaText`, its row; for a full row, the delta computed anyway), sharing the parent's items; and for a
 * delta row its merged delta since the base (its head's `sinceBase`), built from the parent's. Parsing the
 * full row, or `sinceBase`, instead gave the cache a fresh copy of up to fullSnapshotEvery turns of
 * messages per put, which young-generation GCs then copied and promoted (pauses that landed in reads).
 * Undefined without a cached parent: the caller parses the row.
 */
export function cachedChild(
  parent: Hydrated | undefined,
  delta: CheckpointDelta | undefined,
  deltaText: string | undefined,
  checkpointId: string,
): { channels: Record<string, ChannelSnapshot>; since: CheckpointDelta | undefined } | undefined {
  if (!parent || !delta) return undefined;
  const own = JSON.parse(deltaText ?? JSON.stringify(delta)) as CheckpointDelta;
  const channels = applyDelta(parent.checkpoint.channels, own, checkpointId);
  const since = deltaText !== undefined && parent.since ? mergeSince(parent.since, own, channels) : undefined;
  return { channels, since };
}

/** Parses and applies; throws (anything) on a shape it cannot apply. Owns what it parses, so appends in place. */
function fastFold(chain: readonly ChainLink[]): Folded | undefined {
  const last = chain[chain.length - 1] as ChainLink;
  const base = last.parsed ?? (JSON.parse(last.payload) as unknown);
  if (!isPlainObject(base)) return undefined;
  const channels = base as Record<string, ChannelSnapshot>;
  const since: Record<string, Record<string, unknown>> = {};
  for (let i = chain.length - 2; i >= 0; i--) {
    const delta = JSON.parse((chain[i] as ChainLink).payload) as unknown;
    if (!isPlainObject(delta)) return undefined;
    for (const name in delta) {
      const op = delta[name] as Record<string, unknown>;
      // strictFold names the row: a channel named __proto__, or a version going back (delta.ts).
      if (name === '__proto__') return undefined;
      const prior = channels[name] as { version?: unknown } | undefined;
      const version = op.op === 'put' ? (op.snapshot as { version?: unknown } | null)?.version : op.version;
      if (prior && typeof version === 'number' && version < (prior.version as number)) return undefined;
      if (op.op === 'put') {
        if (!isPlainObject(op.snapshot)) return undefined;
        // The snapshot object is shared with `channels`, so later appends reach the merged put too.
        channels[name] = op.snapshot as unknown as ChannelSnapshot;
        since[name] = op;
      } else if (op.op === 'drop') {
        delete channels[name];
        since[name] = op;
      } else if (op.op === 'append') {
        const list = appendTarget(channels[name]);
        const items = op.items;
        if (!list || !Number.isSafeInteger(op.version) || !Array.isArray(items)) return undefined;
        for (const item of items) list.push(item);
        (channels[name] as { version: number }).version = op.version as number;
        const prev = since[name];
        if (!prev) since[name] = { op: 'append', version: op.version, items: [...items] };
        else if (prev.op === 'append') {
          for (const item of items) (prev.items as unknown[]).push(item);
          prev.version = op.version;
        }
      } else {
        return undefined;
      }
    }
  }
  return { channels, since: since as unknown as CheckpointDelta };
}

/** Validates every row's text on its own, oldest first, and throws for the first bad one. */
export function strictFold(chain: readonly ChainLink[]): Record<string, ChannelSnapshot> {
  let channels: Record<string, ChannelSnapshot> = {};
  for (let i = chain.length - 1; i >= 0; i--) {
    const row = chain[i] as ChainLink;
    const parsed = parsePayload(row);
    channels =
      row.storage === 'full'
        ? parseStoredChannels(row, parsed)
        : applyDelta(channels, parseDelta(parsed, row.checkpointId), row.checkpointId, true);
  }
  return channels;
}

function parsePayload(row: ChainLink): unknown {
  try {
    return JSON.parse(row.payload);
  } catch {
    return corruptRow(row, 'stored payload is not valid JSON');
  }
}

function parseStoredChannels(row: ChainLink, parsed: unknown): Record<string, ChannelSnapshot> {
  try {
    return parseChannels(parsed);
  } catch (error) {
    return corruptRow(
      row,
      `stored channels are invalid (${error instanceof Error ? error.message : String(error)})`,
    );
  }
}
