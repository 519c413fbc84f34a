import {
  type ChannelSnapshot,
  type Checkpoint,
  type JsonValue,
  STAGE_IDS,
  type StageId,
} from '@agentlane/contract';
import { type CheckpointDelta, computeDelta, sortKeys } from '../delta.js';
import { CheckpointError } from '../errors.js';
import { deepFreeze } from '../json.js';
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
import { parseCheckpoint } from '../validate.js';
import { stringifyFull } from './base-layout.js';
import { cachedChild, corruptRow, foldChain, mergeSince, strictFold } from './hydrate.js';
import { type Hydrated, HydratedCache } from './hydrated-cache.js';
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
import {
  encodeWrites,
  listArguments,
  listCursor,
  namespaceOf,
  requireId,
  requireKeepNewest,
  summary,
} from './saver-arguments.js';

export interface DeltaSaverOptions {
  /** Write a full snapshot every K checkpoints (K >= 1; 1 = always full; Infinity = only the first). Default 50. */
  fullSnapshotEvery?: number;
  /** Hydrated checkpoints kept in memory (0 disables). Default 32. */
  cacheSize?: number;
  /**
   * Largest materialized head (its merged delta, bytes of JSON) worth keeping. Default 256 KiB. A head is a
   * second copy of everything since its base, rewritten at every put: past this size it costs more than the
   * chain read it saves, so the namespace keeps none until its next full row (readers then read the chain).
   */
  headMaxBytes?: number;
}

const DEFAULT_FULL_EVERY = 50;
const DEFAULT_HEAD_MAX_BYTES = 256 * 1024;
const YIELD_BYTES = 256 * 1024;
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The saver logic shared by every backend: validation, delta encoding, hydration, retention and a small
 * cache of hydrated states (so a put only needs its parent's state, not a re-read of the chain).
 */
export class DeltaCheckpointSaver implements CheckpointSaver {
  private readonly fullEvery: number;
  private readonly cacheSize: number;
  private readonly cache: HydratedCache;
  private readonly headMaxBytes: number;

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
    this.cache = new HydratedCache(this.cacheSize);
    this.headMaxBytes = options.headMaxBytes ?? DEFAULT_HEAD_MAX_BYTES;
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
    const full = storage === 'full' ? stringifyFull(sortKeys(checkpoint.channels)) : undefined;
    const payload = full ? full.text : JSON.stringify(delta);
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
    const head = full
      ? {
          baseCheckpointId: checkpoint.id,
          sinceBase: '{}',
          ...(full.layout ? { baseLayout: full.layout } : {}),
        }
      : this.headFor(checkpoint, parent, delta, payload.length);
    // A large payload (a long answer) is megabytes of synchronous work at each step of a put: serialising,
    // the insert (synchronous on SQLite), re-parsing for the cache. Other callbacks get a turn in between.
    const large = payload.length > YIELD_BYTES;
    if (large) await yieldToLoop();
    const outcome = await this.rows.insert(row, parent ? parent.seq : null, head);
    if (large) await yieldToLoop();
    if (outcome === 'duplicate') {
      throw new CheckpointError(
        'duplicate_checkpoint',
        `checkpoint ${checkpoint.id} already exists in session ${checkpoint.sessionId}`,
        checkpoint.id,
        'id',
      );
    }
    if (outcome === 'missing_parent') {
      this.cache.evict(checkpoint.sessionId, parentId as string);
      throw new CheckpointError(
        'missing_parent',
        `parent checkpoint ${parentId} was removed`,
        checkpoint.id,
        'parentCheckpointId',
      );
    }
    if (this.cacheSize > 0) {
      const cached = cachedChild(parent, delta, storage === 'delta' ? payload : undefined, checkpoint.id);
      const channels = cached?.channels ?? (JSON.parse(payload) as Record<string, ChannelSnapshot>);
      this.cache.remember(checkpoint.sessionId, {
        ...this.envelope({ ...row, seq: outcome }, channels),
        seq: outcome,
        baseId: head?.baseCheckpointId ?? checkpoint.id,
        since: head ? (cached?.since ?? {}) : undefined,
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

  /**
   * The namespace's materialized head after a delta row: its base plus one merged delta; null
   * (drop the namespace's head) once the merged delta passes headMaxBytes; undefined (leave it, it no longer
   * matches) when the parent's merged delta is not known.
   */
  private headFor(
    checkpoint: Checkpoint,
    parent: Hydrated | undefined,
    delta: CheckpointDelta | undefined,
    deltaLength: number,
  ): HeadRow | null | undefined {
    if (!parent?.since || !delta) return undefined;
    // The merged delta holds each of this delta's operations whole or grown: no need to build it to know.
    if (deltaLength > this.headMaxBytes) return null;
    const sinceBase = JSON.stringify(mergeSince(parent.since, delta, checkpoint.channels));
    return sinceBase.length > this.headMaxBytes ? null : { baseCheckpointId: parent.baseId, sinceBase };
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
      const cached = this.cache.get(sessionId, head.checkpointId);
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
    const { limit, beforeSeq } = listArguments(query);
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
    return {
      items: page.map(summary),
      nextCursor: rows.length > limit && last ? listCursor(query.sessionId, last.seq) : null,
    };
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
    const encoded = encodeWrites(taskId, writes);
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
    requireKeepNewest(options.keepNewest);
    for (let attempt = 0; attempt < 5; attempt++) {
      const result = await this.tryPrune(options.sessionId, namespace, options.keepNewest);
      if (result) return result;
    }
    throw new CheckpointError('invalid_argument', 'prune kept racing with concurrent puts; try again');
  }

  async deleteSession(sessionId: string): Promise<void> {
    requireId('sessionId', sessionId);
    await this.rows.deleteSession(sessionId);
    this.cache.forgetSession(sessionId);
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
    this.cache.forgetSession(sessionId);
    return { deleted: deleteIds.length, rebased: rewrites.length };
  }

  /** Cached state when the cache still matches storage, otherwise a hydration from the rows. */
  private async load(
    sessionId: string,
    checkpointId: string,
    trustCache: boolean,
  ): Promise<Hydrated | undefined> {
    const cached = this.cache.get(sessionId, checkpointId);
    if (cached) {
      // For a put the insert re-checks the parent's seq atomically, so the cache is enough.
      if (trustCache) return cached;
      const head = await this.rows.head(sessionId, checkpointId);
      if (head && head.seq === cached.seq) return cached;
      this.cache.evict(sessionId, checkpointId);
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
    this.cache.remember(sessionId, hydrated);
    return hydrated;
  }

  private envelope(
    head: CheckpointRow,
    channels: Record<string, ChannelSnapshot>,
  ): Pick<Hydrated, 'namespace' | 'baseDistance' | 'checkpoint'> {
    if (!(STAGE_IDS as readonly string[]).includes(head.stageId))
      corruptRow(head, `stage_id "${head.stageId}" is not a stage`);
    if (!Number.isSafeInteger(head.schemaVersion) || head.schemaVersion < 1)
      corruptRow(head, 'schema_version is not a positive integer');
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
}
