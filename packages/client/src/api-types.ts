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
  SessionState,
  VersionVector,
} from '@agentlane/contract';

// ---------------------------------------------------------------- sessions

export interface SessionRecord {
  id: string;
  threadId: string;
  provider: string;
  nativeSessionId?: string | null;
  generation: number;
  capabilities?: NegotiatedCapabilities;
  status?: string;
  cwd?: string;
  title?: string;
  createdAt?: string;
  updatedAt?: string;
  lastActivityAt?: string;
  state?: SessionState;
  metadata?: JsonObject;
}

export interface ListSessionsQuery {
  provider?: string;
  threadId?: string;
  status?: string;
  /** Free-text search over title and cwd. */
  q?: string;
  limit?: number;
  cursor?: string;
}

export interface ListSessionsResponse {
  sessions: SessionRecord[];
  nextCursor?: string | null;
}

export interface CreateSessionRequest {
  /** Which configured engine to run (an open string, as the server lists it). */
  provider: string;
  threadId?: string;
  cwd?: string;
  title?: string;
  config?: JsonObject;
}

export interface UpdateSessionRequest {
  title?: string;
  metadata?: JsonObject;
  /** The generation the caller last saw; a stale one is refused with 409. */
  generation?: number;
}

// ---------------------------------------------------------------- sync

export interface SyncChange {
  key: string;
  value: JsonValue;
  clientId: string;
  version: number;
}

export interface SyncRequest {
  clientId: string;
  versionVector: VersionVector;
  changes: SyncChange[];
}

export interface SyncConflictReport {
  key: string;
  changes: SyncChange[];
}

export interface SyncResponse {
  versionVector: VersionVector;
  /** Changes the client has not seen yet. */
  changes: SyncChange[];
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
  sessionId?: string;
  model?: string;
  mode?: string;
}

export interface RunRecord {
  id: string;
  threadId: string;
  sessionId?: string;
  status: RunStatus;
  parentRunId?: string | null;
  createdAt?: string;
  updatedAt?: string;
  canonicalized?: boolean;
}

export interface ApprovalAnswer {
  /** The chosen option; omit with outcome `cancelled`. */
  optionId?: string;
  outcome?: 'selected' | 'cancelled';
}

export interface QuestionAnswer {
  outcome?: 'answered' | 'declined';
  choiceIds?: string[];
  text?: string;
}

export interface AnswerResponse {
  ok: boolean;
  [key: string]: unknown;
}

// ---------------------------------------------------------------- health, artifacts, errors

export interface HealthResponse {
  status: 'ok' | 'degraded' | 'down' | string;
  version?: string;
  store?: string;
  checks?: Record<string, unknown>;
  /** Engines the server is configured to run, when it says. */
  engines?: { id: string; label?: string }[];
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
