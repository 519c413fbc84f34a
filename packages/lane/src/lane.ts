import type { JsonObject } from '@agentlane/contract';
import type { EngineDriver } from '@agentlane/engine-kit';
import {
  DEFAULT_RUN_LEASE_MS,
  DEFAULT_RUN_LEASE_RENEW_MS,
  type RunRecord,
  type Store,
  StoreError,
} from '@agentlane/store';
import { Canonicalizer } from './canonicalizer.js';
import { RunExecutor } from './executor.js';
import { PublishHub } from './hub.js';
import { DEFAULT_ARTIFACT_THRESHOLD_BYTES } from './offload.js';
import {
  DEFAULT_APPROVAL_TIMEOUT_MS,
  DEFAULT_CANCEL_GRACE_MS,
  DEFAULT_ENGINE_IDLE_MS,
  DEFAULT_MAX_CONCURRENT_RUNS,
  DEFAULT_TURN_IDLE_MS,
  type Lane,
  type LaneOptions,
} from './types.js';

/** The lane's settings: the options with their defaults, checked. */
function laneSettings(options: LaneOptions) {
  const drivers = new Map<string, EngineDriver>(
    options.drivers instanceof Map
      ? (options.drivers as ReadonlyMap<string, EngineDriver>)
      : (options.drivers as readonly EngineDriver[]).map((d) => [d.name, d] as const),
  );
  const pollIntervalMs = options.pollIntervalMs ?? 100;
  const leaseMs = options.runLeaseMs ?? DEFAULT_RUN_LEASE_MS;
  const leaseRenewMs = options.runLeaseRenewMs ?? DEFAULT_RUN_LEASE_RENEW_MS;
  if (!(leaseRenewMs > 0 && leaseRenewMs * 2 <= leaseMs))
    throw new Error(
      `runLeaseRenewMs (${leaseRenewMs}) must be positive and at most half of runLeaseMs (${leaseMs})`,
    );
  const artifactThresholdBytes = options.artifactThresholdBytes ?? DEFAULT_ARTIFACT_THRESHOLD_BYTES;
  const approvalTimeoutMs = options.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS;
  if (!(Number.isSafeInteger(approvalTimeoutMs) && approvalTimeoutMs >= 0))
    throw new Error(`approvalTimeoutMs (${approvalTimeoutMs}) must be a whole number of ms, 0 for never`);
  const cancelGraceMs = wholeMs('cancelGraceMs', options.cancelGraceMs ?? DEFAULT_CANCEL_GRACE_MS);
  const engineIdleMs = wholeMs('engineIdleMs', options.engineIdleMs ?? DEFAULT_ENGINE_IDLE_MS);
  const turnIdleMs = wholeMs('turnIdleMs', options.turnIdleMs ?? DEFAULT_TURN_IDLE_MS);
  const driverFor = (engine: string) => drivers.get(engine);
  return {
    driverFor,
    pollIntervalMs,
    leaseMs,
    leaseRenewMs,
    artifactThresholdBytes,
    approvalTimeoutMs,
    cancelGraceMs,
    engineIdleMs,
    turnIdleMs,
  };
}

function wholeMs(name: string, value: number): number {
  if (!(Number.isSafeInteger(value) && value >= 0))
    throw new Error(`${name} (${value}) must be a whole number of ms`);
  return value;
}

async function requireRun(store: Store, runId: string): Promise<RunRecord> {
  const run = await store.getRun(runId);
  if (!run) throw new StoreError('not_found', `run ${runId} not found`);
  return run;
}

/** An answer is only taken for a run some live process executes: otherwise nobody would deliver it. */
async function requireExecuting(store: Store, runId: string): Promise<RunRecord> {
  const run = await requireRun(store, runId);
  const live = run.status === 'running' && run.leaseUntil !== null && Date.parse(run.leaseUntil) > Date.now();
  if (!live) {
    const why =
      run.status === 'running'
        ? `its process (${run.ownerId ?? '?'}) is gone; it is being settled`
        : run.status === 'queued'
          ? 'it has not started'
          : `it has ended (${run.outcome ?? run.status})`;
    throw new StoreError('conflict', `run ${runId} is not executing anywhere: ${why}`);
  }
  return run;
}

/** The lane's three workers: the publish hub, the canonicalizer and the run executor. */
function laneWorkers(options: LaneOptions, settings: ReturnType<typeof laneSettings>) {
  const { store, ownerId, log } = options;
  const {
    driverFor,
    pollIntervalMs,
    leaseMs,
    leaseRenewMs,
    artifactThresholdBytes,
    approvalTimeoutMs,
    cancelGraceMs,
    engineIdleMs,
    turnIdleMs,
  } = settings;
  const hub = new PublishHub(store, {
    headPollMs: Math.max(pollIntervalMs, 250),
    onListenerError: (err) => log?.('warn', 'a subscriber failed', { error: String(err) }),
  });
  const canonicalizer = new Canonicalizer({
    store,
    hub,
    workerId: ownerId,
    driverFor,
    artifactThresholdBytes,
    ...(options.audit ? { audit: options.audit } : {}),
    ...(options.redactor ? { redactor: options.redactor } : {}),
    ...(log ? { log } : {}),
  });
  const executor = new RunExecutor({
    ...(options.redactor ? { redactor: options.redactor } : {}),
    store,
    hub,
    canonicalizer,
    ownerId,
    driverFor,
    artifactThresholdBytes,
    pollIntervalMs,
    maxConcurrentRuns: options.maxConcurrentRuns ?? DEFAULT_MAX_CONCURRENT_RUNS,
    leaseMs,
    leaseRenewMs,
    approvalTimeoutMs,
    cancelGraceMs,
    engineIdleMs,
    turnIdleMs,
    workDirFor: options.workDirFor ?? ((t) => t.workDir ?? process.cwd()),
    ...(options.audit ? { audit: options.audit } : {}),
    ...(log ? { log } : {}),
  });
  return { hub, canonicalizer, executor };
}

/** Builds the lane the server calls. Nothing runs until start(). */
export function createLane(options: LaneOptions): Lane {
  const { store } = options;
  const settings = laneSettings(options);
  const { pollIntervalMs } = settings;
  const { hub, canonicalizer, executor } = laneWorkers(options, settings);
  const execute = options.execute ?? true;
  let started = false;

  /** Records an answer for a run some live process executes, and wakes its waiter if it runs here. */
  const recordAnswer = async (
    runId: string,
    kind: 'approval' | 'question',
    targetId: string,
    answer: unknown,
    unlessResolved = false,
  ) => {
    const run = await requireExecuting(store, runId);
    const record = await store.recordAnswer({
      threadId: run.threadId,
      runId,
      kind,
      targetId,
      answer: answer as JsonObject,
      unlessResolved,
    });
    executor.wakeAnswers(runId);
    return record;
  };

  return {
    async createRun(input) {
      const result = await store.createRun({
        threadId: input.threadId,
        prompt: input.prompt,
        parentRunId: input.parentRunId ?? null,
        options: (input.options ?? {}) as JsonObject,
        idempotencyKey: input.idempotencyKey ?? null,
        ...(input.expectedGeneration !== undefined ? { expectedGeneration: input.expectedGeneration } : {}),
      });
      if (result.created) {
        hub.publishSignal(input.threadId, {
          type: 'run.status',
          threadId: input.threadId,
          runId: result.run.runId,
          status: result.run.status,
          statusVersion: result.run.statusVersion,
        });
        if (started && execute) executor.kick();
      }
      return result;
    },

    async cancelRun(runId, idempotencyKey) {
      await requireRun(store, runId);
      const command = await store.requestCancel(runId, idempotencyKey ?? null);
      executor.cancelLocal(runId);
      if (started && execute) await executor.settleCancelledQueued(runId);
      return command;
    },

    answerApproval({ runId, approvalId, answer, unlessResolved }) {
      return recordAnswer(runId, 'approval', approvalId, answer, unlessResolved);
    },

    answerQuestion({ runId, questionId, answer, unlessResolved }) {
      return recordAnswer(runId, 'question', questionId, answer, unlessResolved);
    },

    async closeThreadEngine(threadId) {
      return execute ? executor.closeThreadEngine(threadId) : false;
    },

    subscribe(threadId, after, listener, flow) {
      return hub.subscribe(threadId, after, listener, flow);
    },

    async start() {
      if (started) return;
      started = true;
      canonicalizer.start(Math.max(pollIntervalMs, 250));
      // The executor holds leases and reclaims the runs of dead processes (at start, then every renewal).
      if (execute) await executor.start();
    },

    async stop(stopOptions) {
      if (!started) {
        hub.close();
        return;
      }
      started = false;
      await executor.stop(stopOptions?.graceMs ?? 0);
      // Runs the executor settled while stopping still get canonicalized before the worker stops.
      await canonicalizer.processOnce().catch(() => undefined);
      await canonicalizer.stop();
      hub.close();
    },
  };
}
