import type { JsonObject, JsonValue, NegotiatedCapabilities, RunStatus } from '@agentlane/contract';
import type {
  CommandKind,
  CommandRecord,
  CompletionRecord,
  HarnessSessionRecord,
  InteractionAnswerRecord,
  OutboxEntry,
  RunOutcome,
  RunRecord,
  SyncChangeRecord,
  ThreadRecord,
} from '../store.js';
import type { SqlRow } from './sql-conn.js';

// Row → record mappers. PostgreSQL returns BIGINT as a string, hence the Number() calls.

const columnText = (v: unknown): string => String(v);
const columnTextOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
const json = <T>(v: unknown): T => JSON.parse(String(v)) as T;

export const toThread = (r: SqlRow): ThreadRecord => ({
  threadId: columnText(r.thread_id),
  engine: columnText(r.engine),
  title: columnTextOrNull(r.title),
  workDir: columnTextOrNull(r.work_dir),
  createdAt: columnText(r.created_at),
  updatedAt: columnText(r.updated_at),
  metadata: json<JsonObject>(r.metadata),
});

export const toRun = (r: SqlRow): RunRecord => ({
  runId: columnText(r.run_id),
  threadId: columnText(r.thread_id),
  parentRunId: columnTextOrNull(r.parent_run_id),
  status: columnText(r.status) as RunStatus,
  prompt: columnText(r.prompt),
  options: json<JsonObject>(r.options),
  createdAt: columnText(r.created_at),
  startedAt: columnTextOrNull(r.started_at),
  endedAt: columnTextOrNull(r.ended_at),
  error: columnTextOrNull(r.error),
  outcome: columnTextOrNull(r.outcome) as RunOutcome | null,
  ownerId: columnTextOrNull(r.owner_id),
  canonicalizedAt: columnTextOrNull(r.canonicalized_at),
  leaseUntil: columnTextOrNull(r.lease_until),
  statusVersion: Number(r.status_version ?? 0),
  cancelRequestedAt: columnTextOrNull(r.cancel_requested_at),
});

export const toCommand = (r: SqlRow): CommandRecord => ({
  commandId: columnText(r.command_id),
  kind: columnText(r.kind) as CommandKind,
  threadId: columnText(r.thread_id),
  runId: columnText(r.run_id),
  idempotencyKey: columnTextOrNull(r.idempotency_key),
  payload: json<JsonObject>(r.payload),
  createdAt: columnText(r.created_at),
});

export const toSession = (r: SqlRow): HarnessSessionRecord => ({
  threadId: columnText(r.thread_id),
  provider: columnText(r.provider),
  engine: columnText(r.engine),
  nativeSessionId: columnTextOrNull(r.native_session_id),
  runtimeBinding: json<JsonObject>(r.runtime_binding),
  protocolVersion: columnText(r.protocol_version),
  capabilities: json<NegotiatedCapabilities>(r.capabilities),
  generation: Number(r.generation),
  updatedAt: columnText(r.updated_at),
});

export const toCompletion = (r: SqlRow): CompletionRecord => ({
  runId: columnText(r.run_id),
  threadId: columnText(r.thread_id),
  lastDeliverySeq: Number(r.last_delivery_seq),
  watermark: { maxNativeSeq: Number(r.max_native_seq), signature: columnText(r.signature), sealed: true },
  completedAt: columnText(r.completed_at),
});

export const toOutbox = (r: SqlRow): OutboxEntry => ({
  runId: columnText(r.run_id),
  threadId: columnText(r.thread_id),
  enqueuedAt: columnText(r.enqueued_at),
  attempts: Number(r.attempts),
  lastError: columnTextOrNull(r.last_error),
});

export const toAnswer = (r: SqlRow): InteractionAnswerRecord => ({
  answerId: columnText(r.answer_id),
  threadId: columnText(r.thread_id),
  runId: columnText(r.run_id),
  kind: columnText(r.kind) as InteractionAnswerRecord['kind'],
  targetId: columnText(r.target_id),
  answer: json<JsonObject>(r.answer),
  createdAt: columnText(r.created_at),
  deliveredAt: columnTextOrNull(r.delivered_at),
});

export const toSyncChange = (r: SqlRow): SyncChangeRecord => ({
  sessionId: columnText(r.session_id),
  clientId: columnText(r.client_id),
  version: Number(r.version),
  key: columnText(r.key),
  value: json<JsonValue>(r.value),
  vector: json<Record<string, number>>(r.vector),
  serverSeq: Number(r.server_seq),
  receivedAt: columnText(r.received_at),
});
