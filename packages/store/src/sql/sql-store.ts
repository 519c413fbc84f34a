import type { ArtifactStore } from '../roles/artifacts.js';
import type { EventStore } from '../roles/events.js';
import type { InteractionStore } from '../roles/interactions.js';
import type { OutboxStore } from '../roles/outbox.js';
import type { RunStore } from '../roles/runs.js';
import type { SessionStore } from '../roles/sessions.js';
import type { SignalStore } from '../roles/signals.js';
import {
  DEFAULT_RAW_SIDECAR_LIMITS,
  type RawSidecarLimits,
  type SourceLaneStore,
} from '../roles/source-lane.js';
import type { SyncStore } from '../roles/sync.js';
import type { ThreadStore } from '../roles/threads.js';
import type { Store } from '../store.js';
import { validateRawLimits } from './raw-sidecar.js';
import { SqlArtifacts } from './repos/artifacts.js';
import { SqlContext } from './repos/context.js';
import { SqlEvents } from './repos/events.js';
import { SqlInteractions } from './repos/interactions.js';
import { SqlOutbox } from './repos/outbox.js';
import { SqlRuns } from './repos/runs.js';
import { SqlSessions } from './repos/sessions.js';
import { SqlSignals } from './repos/signals.js';
import { SqlSourceLane } from './repos/source-lane.js';
import { SqlSync } from './repos/sync.js';
import { SqlThreads } from './repos/threads.js';
import type { Migration, SqlBackend } from './sql-conn.js';
import { WriteQueue } from './write-queue.js';

export interface SqlStoreOptions {
  /** Bounds of the raw frame sidecar (defaults: DEFAULT_RAW_SIDECAR_LIMITS). */
  rawSidecar?: Partial<RawSidecarLimits>;
}

/**
 * The store logic, shared by both backends: every behaviour the conformance suite checks is written once,
 * and a backend only supplies connections, locking clauses and notifications. One repository per role
 * (`repos/`), over one context (backend, transaction, clock, ids) and one write queue (group commit of
 * frames and events); this class only composes them.
 */
export class SqlStore implements Store {
  readonly backend: 'sqlite' | 'postgres';
  private readonly ctx: SqlContext;
  private readonly queue: WriteQueue;
  private readonly threads: SqlThreads;
  private readonly sessions: SqlSessions;
  private readonly runs: SqlRuns;
  private readonly lanes: SqlSourceLane;
  private readonly events: SqlEvents;
  private readonly signals: SqlSignals;
  private readonly outbox: SqlOutbox;
  private readonly interactions: SqlInteractions;
  private readonly sync: SqlSync;
  private readonly artifacts: SqlArtifacts;

  constructor(
    private readonly db: SqlBackend,
    private readonly migrations: readonly Migration[],
    options: SqlStoreOptions = {},
  ) {
    this.backend = db.dialect;
    const rawLimits = validateRawLimits({ ...DEFAULT_RAW_SIDECAR_LIMITS, ...options.rawSidecar });
    this.ctx = new SqlContext(db);
    this.signals = new SqlSignals(this.ctx);
    this.queue = new WriteQueue(db, (heads) => this.signals.publish(heads), this.signals.origin);
    this.threads = new SqlThreads(this.ctx);
    this.sessions = new SqlSessions(this.ctx);
    this.runs = new SqlRuns(this.ctx);
    this.lanes = new SqlSourceLane(this.ctx, this.queue, rawLimits);
    this.events = new SqlEvents(this.ctx, this.queue);
    this.outbox = new SqlOutbox(this.ctx);
    this.interactions = new SqlInteractions(this.ctx);
    this.sync = new SqlSync(this.ctx);
    this.artifacts = new SqlArtifacts(this.ctx);
  }

  async migrate(): Promise<void> {
    await this.db.migrate(this.migrations);
  }

  async close(): Promise<void> {
    if (this.ctx.closed) return;
    this.ctx.closed = true;
    await this.queue.idle();
    this.signals.stop();
    await this.db.close();
  }

  // Each role's methods, handed to its repository (arrow properties: a method taken off the store still works).

  createThread: ThreadStore['createThread'] = (...a) => this.threads.createThread(...a);
  getThread: ThreadStore['getThread'] = (...a) => this.threads.getThread(...a);
  updateThread: ThreadStore['updateThread'] = (...a) => this.threads.updateThread(...a);
  deleteThread: ThreadStore['deleteThread'] = (...a) => this.threads.deleteThread(...a);
  listThreads: ThreadStore['listThreads'] = (...a) => this.threads.listThreads(...a);

  getSession: SessionStore['getSession'] = (...a) => this.sessions.getSession(...a);
  bindSession: SessionStore['bindSession'] = (...a) => this.sessions.bindSession(...a);

  createRun: RunStore['createRun'] = (...a) => this.runs.createRun(...a);
  requestCancel: RunStore['requestCancel'] = (...a) => this.runs.requestCancel(...a);
  getRun: RunStore['getRun'] = (...a) => this.runs.getRun(...a);
  listRuns: RunStore['listRuns'] = (...a) => this.runs.listRuns(...a);
  claimQueuedRun: RunStore['claimQueuedRun'] = (...a) => this.runs.claimQueuedRun(...a);
  claimRun: RunStore['claimRun'] = (...a) => this.runs.claimRun(...a);
  listCommandsSince: RunStore['listCommandsSince'] = (...a) => this.runs.listCommandsSince(...a);
  listRunningRuns: RunStore['listRunningRuns'] = (...a) => this.runs.listRunningRuns(...a);
  renewRunLeases: RunStore['renewRunLeases'] = (...a) => this.runs.renewRunLeases(...a);
  listHeldRuns: RunStore['listHeldRuns'] = (...a) => this.runs.listHeldRuns(...a);
  listExpiredRuns: RunStore['listExpiredRuns'] = (...a) => this.runs.listExpiredRuns(...a);
  takeExpiredRun: RunStore['takeExpiredRun'] = (...a) => this.runs.takeExpiredRun(...a);
  releaseRunLeases: RunStore['releaseRunLeases'] = (...a) => this.runs.releaseRunLeases(...a);
  finalizeRun: RunStore['finalizeRun'] = (...a) => this.runs.finalizeRun(...a);

  appendFrames: SourceLaneStore['appendFrames'] = (...a) => this.lanes.appendFrames(...a);
  readFrames: SourceLaneStore['readFrames'] = (...a) => this.lanes.readFrames(...a);
  readRawFrames: SourceLaneStore['readRawFrames'] = (...a) => this.lanes.readRawFrames(...a);
  sealSource: SourceLaneStore['sealSource'] = (...a) => this.lanes.sealSource(...a);
  readWatermark: SourceLaneStore['readWatermark'] = (...a) => this.lanes.readWatermark(...a);
  listRefusedFrames: SourceLaneStore['listRefusedFrames'] = (...a) => this.lanes.listRefusedFrames(...a);

  appendEvents: EventStore['appendEvents'] = (...a) => this.events.appendEvents(...a);
  readEvents: EventStore['readEvents'] = (...a) => this.events.readEvents(...a);
  headDeliverySeq: EventStore['headDeliverySeq'] = (...a) => this.events.headDeliverySeq(...a);
  latestEvents: EventStore['latestEvents'] = (...a) => this.events.latestEvents(...a);
  latestEventsPage: EventStore['latestEventsPage'] = (...a) => this.events.latestEventsPage(...a);

  onCommitted: SignalStore['onCommitted'] = (...a) => this.signals.onCommitted(...a);
  broadcastSignal: SignalStore['broadcastSignal'] = (...a) => this.signals.broadcastSignal(...a);
  onSignal: SignalStore['onSignal'] = (...a) => this.signals.onSignal(...a);
  listening: SignalStore['listening'] = () => this.signals.listening();
  onListening: SignalStore['onListening'] = (...a) => this.signals.onListening(...a);

  leaseOutbox: OutboxStore['leaseOutbox'] = (...a) => this.outbox.leaseOutbox(...a);
  completeCanonicalization: OutboxStore['completeCanonicalization'] = (...a) =>
    this.outbox.completeCanonicalization(...a);
  releaseOutbox: OutboxStore['releaseOutbox'] = (...a) => this.outbox.releaseOutbox(...a);
  getCompletion: OutboxStore['getCompletion'] = (...a) => this.outbox.getCompletion(...a);
  listCompletions: OutboxStore['listCompletions'] = (...a) => this.outbox.listCompletions(...a);

  recordAnswer: InteractionStore['recordAnswer'] = (...a) => this.interactions.recordAnswer(...a);
  pendingAnswers: InteractionStore['pendingAnswers'] = (...a) => this.interactions.pendingAnswers(...a);
  markAnswerDelivered: InteractionStore['markAnswerDelivered'] = (...a) =>
    this.interactions.markAnswerDelivered(...a);

  appendSyncChanges: SyncStore['appendSyncChanges'] = (...a) => this.sync.appendSyncChanges(...a);
  listSyncChanges: SyncStore['listSyncChanges'] = (...a) => this.sync.listSyncChanges(...a);
  readSyncState: SyncStore['readSyncState'] = (...a) => this.sync.readSyncState(...a);

  putArtifact: ArtifactStore['putArtifact'] = (...a) => this.artifacts.putArtifact(...a);
  putArtifactStream: ArtifactStore['putArtifactStream'] = (...a) => this.artifacts.putArtifactStream(...a);
  getArtifact: ArtifactStore['getArtifact'] = (...a) => this.artifacts.getArtifact(...a);
  openArtifact: ArtifactStore['openArtifact'] = (...a) => this.artifacts.openArtifact(...a);
  artifactInThreads: ArtifactStore['artifactInThreads'] = (...a) => this.artifacts.artifactInThreads(...a);
}
