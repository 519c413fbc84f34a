/**
 * Request and response bodies of every `/api/harness` route, in one file so aligning the client with the
 * server is one diff. Fields are camelCase on the wire. Response types carry only what the client reads;
 * servers may send more.
 */
import type {
  ErrorBody,
  ForkedFrom,
  ForkReply,
  ForkRequest,
  FramePage,
  JsonObject,
  NativeFrameView,
  RawFrameView,
  RunView,
  SessionView,
  SyncChange,
  SyncConflictReport,
  SyncRequest,
  SyncResponse,
  ThreadActivity,
} from '@agentlane/contract';

// The shapes the server sends and reads are the contract's (REST schemas checked equal to these types);
// this file names them for the client and adds the request bodies and replies only the client declares.
export type {
  ErrorBody,
  ForkedFrom,
  ForkReply,
  ForkRequest,
  FramePage,
  NativeFrameView,
  RawFrameView,
  SyncChange,
  SyncConflictReport,
  SyncRequest,
  SyncResponse,
  ThreadActivity,
};

// ---------------------------------------------------------------- sessions

/** The `/sessions` resource: a thread plus its harness session (one per thread; `id` is the thread id). */
export type SessionRecord = SessionView;

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

/** The `/runs` resource. */
export type RunRecord = RunView;

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
  engines?: {
    name: string;
    provider: string;
    label: string;
    /** The engine's static capability flags, where it has a static manifest (the built-in engine). */
    capabilities?: Record<string, boolean>;
  }[];
}

export interface ArtifactContent {
  contentType: string;
  etag?: string;
  bytes: Uint8Array;
  text(): string;
}
