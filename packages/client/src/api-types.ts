/**
 * Request and response bodies of every `/api/harness` route, in one file so aligning the client with the
 * server is one diff. Fields are camelCase on the wire. Response types carry only what the client reads;
 * servers may send more.
 */
import type {
  JsonObject,
  JsonValue,
  NegotiatedCapabilities,
  RunStatus,
  VersionVector,
} from '@agentlane/contract';

// ---------------------------------------------------------------- sessions

/** The `/sessions` resource: a thread plus its harness session (one per thread; `id` is the thread id). */
export interface SessionRecord {
  id: string;
  /** The configured engine the thread runs on (an open string). */
  engine: string;
  title: string | null;
  workDir: string | null;
  metadata: JsonObject;
  createdAt: string;
  updatedAt: string;
  provider: string | null;
  nativeSessionId: string | null;
  protocolVersion: string | null;
  capabilities: NegotiatedCapabilities;
  generation: number;
  /** In list and read replies of servers that derive it: the thread at a glance. */
  activity?: ThreadActivity;
}

/** The latest run's state ('waiting' = an unanswered approval or question), first prompt, head deliverySeq. */
export interface ThreadActivity {
  status: 'idle' | 'queued' | 'running' | 'waiting' | 'failed' | 'done';
  runId: string | null;
  firstPrompt: string | null;
  headSeq: number;
}

export interface ListSessionsQuery {
  engine?: string;
  /** Free-text search. */
  search?: string;
  limit?: number;
  cursor?: string;
}

export interface ListSessionsResponse {
  sessions: SessionRecord[];
  nextCursor: string | null;
}

export interface CreateSessionRequest {
  engine: string;
  workDir?: string;
  title?: string;
  metadata?: JsonObject;
}

export interface UpdateSessionRequest {
  title?: string | null;
  metadata?: JsonObject;
  /** The generation the caller last saw; a stale one is refused with 409. */
  expectedGeneration?: number;
}

// ---------------------------------------------------------------- sync

export interface SyncChange {
  key: string;
  value: JsonValue;
  version: number;
  vector: VersionVector;
}

export interface SyncRequest {
  clientId: string;
  vector: VersionVector;
  changes: SyncChange[];
}

export interface SyncConflictReport {
  key: string;
  changes: { clientId: string; version: number; value: JsonValue }[];
}

export interface SyncResponse {
  vector: VersionVector;
  /** Changes the client has not seen yet. */
  changes: (SyncChange & { clientId: string })[];
  conflicts: SyncConflictReport[];
}

// ---------------------------------------------------------------- execute, runs

export interface ExecuteRequest {
  prompt: string;
  parentRunId?: string;
  model?: string;
  mode?: string;
}

export interface CreateRunRequest {
  prompt: string;
  /** A reply: the run this one answers. */
  parentRunId?: string;
  model?: string;
  mode?: string;
  expectedGeneration?: number;
}

export interface RunRecord {
  runId: string;
  threadId: string;
  parentRunId: string | null;
  status: RunStatus;
  prompt: string;
  options: JsonObject;
  createdAt: string;
  startedAt: string | null;
  endedAt: string | null;
  error: string | null;
  /** How the settled run ended (null until then): a cancelled run is status completed, outcome cancelled. */
  outcome: 'completed' | 'failed' | 'cancelled' | null;
  canonicalizedAt: string | null;
}

export interface ApprovalAnswer {
  outcome: 'selected' | 'cancelled';
  /** The chosen option; required with `selected`. */
  optionId?: string;
}

export interface QuestionAnswer {
  outcome: 'answered' | 'declined' | 'cancelled';
  choiceIds?: string[];
  text?: string;
}

export interface AnswerResponse {
  accepted: boolean;
}

// ---------------------------------------------------------------- health, artifacts, errors

export interface HealthResponse {
  status: 'ok' | 'degraded' | 'draining';
  version: string;
  store: string;
  checks: Record<string, { status: string; latencyMs?: number; error?: string }>;
  openStreams: number;
  /** Engines the server is configured to run, when it lists them. */
  engines?: { name: string; provider: string; label: string }[];
}

export interface ArtifactContent {
  contentType: string;
  etag?: string;
  bytes: Uint8Array;
  text(): string;
}

/** The JSON error body the server sends with every 4xx/5xx. */
export interface ErrorBody {
  error?: { code?: string; message?: string; field?: string } | string;
  code?: string;
  message?: string;
  field?: string;
}
