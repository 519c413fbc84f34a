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
} from '../store';
import type { SqlRow } from './sql-conn';

// Row → record mappers. PostgreSQL returns BIGINT as a string, hence the Number() calls.

const str = (v: unknown): string => String(v);
const strOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
const json = <T>(v: unknown): T => JSON.parse(String(v)) as T;

export const toThread = (r: SqlRow): ThreadRecord => ({
  threadId: str(r.thread_id),
  engine: str(r.engine),
  title: strOrNull(r.title),
  workDir: strOrNull(r.work_dir),
  createdAt: str(r.created_at),
  updatedAt: str(r.updated_at),
  metadata: json<JsonObject>(r.metadata),
});

export const toRun = (r: SqlRow): RunRecord => ({
  runId: str(r.run_id),
  threadId: str(r.thread_id),
  parentRunId: strOrNull(r.parent_run_id),
  status: str(r.status) as RunStatus,
  prompt: str(r.prompt),
  options: json<JsonObject>(r.options),
  createdAt: str(r.created_at),
  startedAt: strOrNull(r.started_at),
  endedAt: strOrNull(r.ended_at),
  error: strOrNull(r.error),
  outcome: strOrNull(r.outcome) as RunOutcome | null,
  ownerId: strOrNull(r.owner_id),
  canonicalizedAt: strOrNull(r.canonicalized_at),
  leaseUntil: strOrNull(r.lease_until),
  statusVersion: Number(r.status_version ?? 0),
  cancelRequestedAt: strOrNull(r.cancel_requested_at),
});

export const toCommand = (r: SqlRow): CommandRecord => ({
  commandId: str(r.command_id),
  kind: str(r.kind) as CommandKind,
  threadId: str(r.thread_id),
  runId: str(r.run_id),
  idempotencyKey: strOrNull(r.idempotency_key),
  payload: json<JsonObject>(r.payload),
  createdAt: str(r.created_at),
});

export const toSession = (r: SqlRow): HarnessSessionRecord => ({
  threadId: str(r.thread_id),
  provider: str(r.provider),
  engine: str(r.engine),
  nativeSessionId: strOrNull(r.native_session_id),
  runtimeBinding: json<JsonObject>(r.runtime_binding),
  protocolVersion: str(r.protocol_version),
  capabilities: json<NegotiatedCapabilities>(r.capabilities),
  generation: Number(r.generation),
  updatedAt: str(r.updated_at),
});

export const toCompletion = (r: SqlRow): CompletionRecord => ({
  runId: str(r.run_id),
  threadId: str(r.thread_id),
  lastDeliverySeq: Number(r.last_delivery_seq),
  watermark: { maxNativeSeq: Number(r.max_native_seq), signature: str(r.signature), sealed: true },
  completedAt: str(r.completed_at),
});

export const toOutbox = (r: SqlRow): OutboxEntry => ({
  runId: str(r.run_id),
  threadId: str(r.thread_id),
  enqueuedAt: str(r.enqueued_at),
  attempts: Number(r.attempts),
  lastError: strOrNull(r.last_error),
});

export const toAnswer = (r: SqlRow): InteractionAnswerRecord => ({
  answerId: str(r.answer_id),
  threadId: str(r.thread_id),
  runId: str(r.run_id),
  kind: str(r.kind) as InteractionAnswerRecord['kind'],
  targetId: str(r.target_id),
  answer: json<JsonObject>(r.answer),
  createdAt: str(r.created_at),
  deliveredAt: strOrNull(r.delivered_at),
});

export const toSyncChange = (r: SqlRow): SyncChangeRecord => ({
  sessionId: str(r.session_id),
  clientId: str(r.client_id),
  version: Number(r.version),
  key: str(r.key),
  value: json<JsonValue>(r.value),
  vector: json<Record<string, number>>(r.vector),
  serverSeq: Number(r.server_seq),
  receivedAt: str(r.received_at),
});
