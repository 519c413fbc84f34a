import {
  type ChannelSnapshot,
  type Checkpoint,
  type JsonValue,
  STAGE_IDS,
  type StageId,
} from '@agentlane/contract';
import { applyDelta, type CheckpointDelta, computeDelta, sortKeys } from '../delta.js';
import { CheckpointError } from '../errors.js';
import { deepFreeze, isJsonValue } from '../json.js';
import type {
  CheckpointSaver,
  CheckpointSummary,
  ListPage,
  ListQuery,
  PendingWrite,
  PruneOptions,
  PruneResult,
  PutOptions,
  PutResult,
  WriteInput,
} from '../saver.js';
import { isValidId, parseCheckpoint } from '../validate.js';
import { corruptRow, foldChain, mergeSince, strictFold } from './hydrate.js';
import { planPrune } from './prune-plan.js';
import type {
  Chain,
  ChainLink,
  CheckpointRow,
  CheckpointRowStore,
  HeadRow,
  NewRow,
  RowMeta,
} from './rows.js';

export interface DeltaSaverOptions {
  /** Write a full snapshot every K checkpoints (K >= 1; 1 = always full; Infinity = only the first). Default 50. */
  fullSnapshotEvery?: number;
  /** Hydrated checkpoints kept in memory (0 disables). Default 32. */
  cacheSize?: number;
}

interface Hydrated {
  seq: number;
  namespace: string;
  baseDistance: number;
  checkpoint: Checkpoint;
  /** The full row the state was built on, and the merged delta from it (undefined: not known). */
  baseId: string;
  since: CheckpointDelta | undefined;
}

const DEFAULT_FULL_EVERY = 50;
const MAX_LIMIT = 1000;

function requireId(field: string, value: unknown): string {
  if (!isValidId(value))
    throw new CheckpointError('invalid_argument', `${field} must be an id string`, undefined, field);
  return value;
}

function namespaceOf(options: PutOptions | undefined): string {
  const ns = options?.namespace ?? '';
  if (typeof ns !== 'string' || ns.length > 256) {
    throw new CheckpointError(
      'invalid_argument',
      'namespace must be a string of at most 256 characters',
      undefined,
      'namespace',
    );
  }
  return ns;
}

function summary(meta: RowMeta): CheckpointSummary {
  return {
    checkpointId: meta.checkpointId,
    sessionId: meta.sessionId,
    namespace: meta.namespace,
    stageId: meta.stageId as StageId,
    createdAt: meta.createdAt,
    schemaVersion: meta.schemaVersion,
    parentCheckpointId: meta.parentCheckpointId,
    storage: meta.storage,
    bytes: meta.bytes,
    pinned: meta.pinned,
  };
}

/**
 * The saver logic shared by every backend: validation, delta encoding, hydration, retention and a small
 * cache of hydrated states (so a put only needs its parent's state, not a re-read of the chain).
 */
export class DeltaCheckpointSaver implements CheckpointSaver {
  private readonly fullEvery: number;
  private readonly cacheSize: number;
  private readonly cache = new Map<string, Hydrated>();

  constructor(
    protected readonly rows: CheckpointRowStore,
    options: DeltaSaverOptions = {},
  ) {
    const k = options.fullSnapshotEvery ?? DEFAULT_FULL_EVERY;
    if (!(k >= 1) || (!Number.isInteger(k) && k !== Number.POSITIVE_INFINITY)) {
      throw new CheckpointError('invalid_argument', 'fullSnapshotEvery must be an integer >= 1 or Infinity');
    }
    this.fullEvery = k;
    this.cacheSize = options.cacheSize ?? 32;
  }

  async put(input: unknown, options?: PutOptions): Promise<PutResult> {
    const checkpoint = parseCheckpoint(input);
    const namespace = namespaceOf(options);
    const parentId = checkpoint.parentCheckpointId;
    let parent: Hydrated | undefined;
    if (parentId !== undefined) {
      parent = await this.load(checkpoint.sessionId, parentId, true);
      if (!parent || parent.namespace !== namespace) {
        throw new CheckpointError(
          'missing_parent',
          `parent checkpoint ${parentId} does not exist in session ${checkpoint.sessionId}${namespace ? ` namespace "${namespace}"` : ''}`,
          checkpoint.id,
          'parentCheckpointId',
        );
      }
    }
    // Computed for every child, also full ones: it is what refuses versions that go backwards.
    const delta = parent
      ? computeDelta(parent.checkpoint.channels, checkpoint.channels, checkpoint.id)
      : undefined;
    const baseDistance = parent && parent.baseDistance + 1 < this.fullEvery ? parent.baseDistance + 1 : 0;
    const storage = delta && baseDistance > 0 ? 'delta' : 'full';
    const payload = JSON.stringify(storage === 'delta' ? delta : sortKeys(checkpoint.channels));
    const row: NewRow = {
      sessionId: checkpoint.sessionId,
      namespace,
      checkpointId: checkpoint.id,
      parentCheckpointId: parentId ?? null,
      stageId: checkpoint.stageId,
      createdAt: checkpoint.createdAt,
      schemaVersion: checkpoint.schemaVersion,
      storage,
      baseDistance,
      payload,
      pinned: false,
    };
    // The namespace's materialized head: this row as its full base plus one merged delta.
    const head: HeadRow | undefined =
      storage === 'full'
        ? { baseCheckpointId: checkpoint.id, sinceBase: '{}' }
        : parent?.since && delta
          ? {
              baseCheckpointId: parent.baseId,
              sinceBase: JSON.stringify(mergeSince(parent.since, delta, checkpoint.channels)),
            }
          : undefined;
    const outcome = await this.rows.insert(row, parent ? parent.seq : null, head);
    if (outcome === 'duplicate') {
      throw new CheckpointError(
        'duplicate_checkpoint',
        `checkpoint ${checkpoint.id} already exists in session ${checkpoint.sessionId}`,
        checkpoint.id,
        'id',
      );
    }
    if (outcome === 'missing_parent') {
      this.evict(checkpoint.sessionId, parentId as string);
      throw new CheckpointError(
        'missing_parent',
        `parent checkpoint ${parentId} was removed`,
        checkpoint.id,
        'parentCheckpointId',
      );
    }
    if (this.cacheSize > 0) {
      // Rebuild from the stored text so the cached state is exactly what a later read would hydrate.
      const parsed = JSON.parse(payload) as unknown;
      const channels =
        storage === 'delta' && parent
          ? applyDelta(parent.checkpoint.channels, parsed as CheckpointDelta, checkpoint.id)
          : (parsed as Record<string, ChannelSnapshot>);
      this.remember(checkpoint.sessionId, {
        ...this.envelope({ ...row, seq: outcome }, channels),
        seq: outcome,
        baseId: head?.baseCheckpointId ?? checkpoint.id,
        since: head ? (JSON.parse(head.sinceBase) as CheckpointDelta) : undefined,
      });
    }
    return {
      checkpointId: checkpoint.id,
      sessionId: checkpoint.sessionId,
      namespace,
      storage,
      bytes: Buffer.byteLength(payload),
    };
  }

  async get(sessionId: string, checkpointId: string): Promise<Checkpoint | undefined> {
    requireId('sessionId', sessionId);
    requireId('checkpointId', checkpointId);
    return (await this.load(sessionId, checkpointId, false))?.checkpoint;
  }

  async getLatest(sessionId: string, options?: PutOptions): Promise<Checkpoint | undefined> {
    requireId('sessionId', sessionId);
    const namespace = namespaceOf(options);
    if (this.cacheSize > 0) {
      const head = await this.rows.latest(sessionId, namespace);
      if (!head) return undefined;
      const cached = this.cached(sessionId, head.checkpointId);
      if (cached && cached.seq === head.seq) return cached.checkpoint;
    }
    // One read: the newest row and its chain (a row put meanwhile is just a newer latest).
    return (await this.hydrateChain(sessionId, await this.rows.latestChain(sessionId, namespace)))
      ?.checkpoint;
  }

  async describe(sessionId: string, checkpointId: string): Promise<CheckpointSummary | undefined> {
    requireId('sessionId', sessionId);
    requireId('checkpointId', checkpointId);
    const head = await this.rows.head(sessionId, checkpointId);
    return head ? summary({ ...head, bytes: Buffer.byteLength(head.payload) }) : undefined;
  }

  async list(query: ListQuery): Promise<ListPage> {
    requireId('sessionId', query.sessionId);
    const limit = query.limit ?? 50;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
      throw new CheckpointError(
        'invalid_argument',
        `limit must be an integer in 1..${MAX_LIMIT}`,
        undefined,
        'limit',
      );
    }
    if (query.stageId !== undefined && !(STAGE_IDS as readonly string[]).includes(query.stageId)) {
      throw new CheckpointError(
        'invalid_argument',
        `stageId must be one of ${STAGE_IDS.join(', ')}`,
        undefined,
        'stageId',
      );
    }
    let beforeSeq: number | undefined;
    if (query.cursor !== undefined) {
      const decoded = /^c([0-9]{1,15})$/.exec(query.cursor);
      if (!decoded)
        throw new CheckpointError(
          'invalid_argument',
          'cursor is not one this saver returned',
          undefined,
          'cursor',
        );
      beforeSeq = Number(decoded[1]);
    }
    const rows = await this.rows.list({
      sessionId: query.sessionId,
      ...(query.namespace === undefined ? {} : { namespace: namespaceOf(query) }),
      ...(query.stageId === undefined ? {} : { stageId: query.stageId }),
      ...(query.pinned === undefined ? {} : { pinned: query.pinned }),
      ...(beforeSeq === undefined ? {} : { beforeSeq }),
      limit: limit + 1,
    });
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return { items: page.map(summary), nextCursor: rows.length > limit && last ? `c${last.seq}` : null };
  }

  async putWrites(
    sessionId: string,
    checkpointId: string,
    taskId: string,
    writes: readonly WriteInput[],
  ): Promise<void> {
    requireId('sessionId', sessionId);
    requireId('checkpointId', checkpointId);
    requireId('taskId', taskId);
    if (!Array.isArray(writes))
      throw new CheckpointError('invalid_argument', 'writes must be an array', undefined, 'writes');
    const encoded = writes.map((write, idx) => {
      if (typeof write?.channel !== 'string' || write.channel.length === 0) {
        throw new CheckpointError(
          'invalid_argument',
          `writes[${idx}].channel must be a non-empty string`,
          undefined,
          'channel',
        );
      }
      if (!isJsonValue(write.value)) {
        throw new CheckpointError(
          'invalid_argument',
          `writes[${idx}].value must be plain JSON`,
          undefined,
          'value',
        );
      }
      return { taskId, idx, channel: write.channel, value: JSON.stringify(write.value) };
    });
    if (!(await this.rows.putWrites(sessionId, checkpointId, encoded))) {
      throw new CheckpointError(
        'not_found',
        `checkpoint ${checkpointId} does not exist in session ${sessionId}`,
        checkpointId,
      );
    }
  }

  async pendingWrites(sessionId: string, checkpointId: string): Promise<PendingWrite[]> {
    requireId('sessionId', sessionId);
    requireId('checkpointId', checkpointId);
    const rows = await this.rows.pendingWrites(sessionId, checkpointId);
    return rows.map((row) => {
      let value: JsonValue;
      try {
        value = JSON.parse(row.value) as JsonValue;
      } catch {
        return corruptRow({ checkpointId }, `pending write ${row.taskId}#${row.idx} is not valid JSON`);
      }
      return { taskId: row.taskId, idx: row.idx, channel: row.channel, value };
    });
  }

  async pin(sessionId: string, checkpointId: string, pinned = true): Promise<void> {
    requireId('sessionId', sessionId);
    requireId('checkpointId', checkpointId);
    if (!(await this.rows.setPinned(sessionId, checkpointId, pinned))) {
      throw new CheckpointError(
        'not_found',
        `checkpoint ${checkpointId} does not exist in session ${sessionId}`,
        checkpointId,
      );
    }
  }

  async prune(options: PruneOptions): Promise<PruneResult> {
    requireId('sessionId', options.sessionId);
    const namespace = namespaceOf(options);
    if (!Number.isInteger(options.keepNewest) || options.keepNewest < 0) {
      throw new CheckpointError(
        'invalid_argument',
        'keepNewest must be an integer >= 0',
        undefined,
        'keepNewest',
      );
    }
    for (let attempt = 0; attempt < 5; attempt++) {
      const result = await this.tryPrune(options.sessionId, namespace, options.keepNewest);
      if (result) return result;
    }
    throw new CheckpointError('invalid_argument', 'prune kept racing with concurrent puts; try again');
  }

  async deleteSession(sessionId: string): Promise<void> {
    requireId('sessionId', sessionId);
    await this.rows.deleteSession(sessionId);
    this.forgetSession(sessionId);
  }

  async close(): Promise<void> {
    this.cache.clear();
    await this.rows.close();
  }

  private async tryPrune(
    sessionId: string,
    namespace: string,
    keepNewest: number,
  ): Promise<PruneResult | undefined> {
    const metas = await this.rows.allMeta(sessionId, namespace);
    if (metas.length === 0) return { deleted: 0, rebased: 0 };
    const { deleteIds, rebaseIds } = planPrune(metas, keepNewest);
    const rewrites: { checkpointId: string; payload: string }[] = [];
    for (const checkpointId of rebaseIds) {
      const hydrated = await this.hydrate(sessionId, checkpointId);
      if (!hydrated) return undefined;
      rewrites.push({ checkpointId, payload: JSON.stringify(sortKeys(hydrated.checkpoint.channels)) });
    }
    const maxSeq = (metas[metas.length - 1] as RowMeta).seq;
    const outcome = await this.rows.applyPrune(sessionId, namespace, maxSeq, deleteIds, rewrites);
    if (outcome === 'changed') return undefined;
    // Rebased rows moved their descendants onto new bases: drop the session's cached states (their base and
    // merged delta) rather than patch them.
    this.forgetSession(sessionId);
    return { deleted: deleteIds.length, rebased: rewrites.length };
  }

  /** Cached state when the cache still matches storage, otherwise a hydration from the rows. */
  private async load(
    sessionId: string,
    checkpointId: string,
    trustCache: boolean,
  ): Promise<Hydrated | undefined> {
    const cached = this.cached(sessionId, checkpointId);
    if (cached) {
      // For a put the insert re-checks the parent's seq atomically, so the cache is enough.
      if (trustCache) return cached;
      const head = await this.rows.head(sessionId, checkpointId);
      if (head && head.seq === cached.seq) return cached;
      this.evict(sessionId, checkpointId);
      if (!head) return undefined;
    }
    return this.hydrate(sessionId, checkpointId);
  }

  private async hydrate(sessionId: string, checkpointId: string): Promise<Hydrated | undefined> {
    return this.hydrateChain(sessionId, await this.rows.chain(sessionId, checkpointId));
  }

  /** The state of `chain[0]` from its chain (newest first, ending at a full row). */
  private async hydrateChain(sessionId: string, chain: Chain): Promise<Hydrated | undefined> {
    const head = chain[0];
    if (!head) return undefined;
    const base = chain[chain.length - 1] as ChainLink;
    if (base.storage !== 'full') {
      corruptRow(
        head,
        `its delta chain is broken: the parent of ${base.checkpointId} (${base.parentCheckpointId}) is missing`,
      );
    }
    const folded = foldChain(chain);
    // The slow path re-reads the row's own chain (not a materialized head) and names the bad row.
    const channels = folded?.channels ?? strictFold(await this.rows.chain(sessionId, head.checkpointId));
    const hydrated: Hydrated = {
      ...this.envelope(head, channels),
      seq: head.seq,
      baseId: (chain[chain.length - 1] as ChainLink).checkpointId,
      since: folded?.since,
    };
    this.remember(sessionId, hydrated);
    return hydrated;
  }

  private envelope(
    head: CheckpointRow,
    channels: Record<string, ChannelSnapshot>,
  ): Pick<Hydrated, 'namespace' | 'baseDistance' | 'checkpoint'> {
    if (!(STAGE_IDS as readonly string[]).includes(head.stageId))
      corruptRow(head, `stage_id "${head.stageId}" is not a stage`);
    if (!Number.isSafeInteger(head.schemaVersion)) corruptRow(head, 'schema_version is not an integer');
    const checkpoint: Checkpoint = {
      id: head.checkpointId,
      sessionId: head.sessionId,
      stageId: head.stageId as StageId,
      createdAt: head.createdAt,
      schemaVersion: head.schemaVersion,
      channels: sortKeys(channels),
      ...(head.parentCheckpointId === null ? {} : { parentCheckpointId: head.parentCheckpointId }),
    };
    // Frozen only when cached: then the same objects are handed to every reader.
    const shared = this.cacheSize > 0 ? deepFreeze(checkpoint) : checkpoint;
    return { namespace: head.namespace, baseDistance: head.baseDistance, checkpoint: shared };
  }

  private cached(sessionId: string, checkpointId: string): Hydrated | undefined {
    return this.cache.get(`${sessionId}\u0000${checkpointId}`);
  }

  private remember(sessionId: string, hydrated: Hydrated): void {
    if (this.cacheSize <= 0) return;
    const key = `${sessionId}\u0000${hydrated.checkpoint.id}`;
    this.cache.delete(key);
    this.cache.set(key, hydrated);
    for (const oldest of this.cache.keys()) {
      if (this.cache.size <= this.cacheSize) break;
      this.cache.delete(oldest);
    }
  }

  private forgetSession(sessionId: string): void {
    for (const key of [...this.cache.keys()])
      if (key.startsWith(`${sessionId}\u0000`)) this.cache.delete(key);
  }

  private evict(sessionId: string, checkpointId: string): void {
    this.cache.delete(`${sessionId}\u0000${checkpointId}`);
  }
}
