import type {
  AuditableCall,
  CanonicalEventDraft,
  Checkpoint,
  JsonValue,
  SessionState,
} from '@agentlane/contract';
import type { ApprovalAnswer, QuestionAnswer, TurnOutcome } from '@agentlane/engine-kit';
import type { ModelApi, PriceTable } from '@agentlane/runtime';
import type { ClockSpec, IdSpec } from './deterministic.js';
import type { WireExchange } from './wire.js';

/** Bumped when the fixture layout changes (see fixtures/corpus/README.md). */
export const CORPUS_VERSION = 1;

/** Stands for the turn's workspace folder, which differs per run, wherever its path shows up. */
export const WORKSPACE_PLACEHOLDER = '<workspace>';

/** The API key the corpus runs with: a fixed dummy (the recorded data must never hold a real one). */
export const CORPUS_API_KEY = 'corpus-dummy-key';

/** Everything needed to run the same turn again. */
export interface CorpusInput {
  description: string;
  threadId: string;
  /** The run and turn id (one turn per run). */
  turnId: string;
  prompt: string;
  /** `basePath` is appended to the model server's origin to give the provider's base URL (e.g. /v1). */
  engine: {
    api: ModelApi;
    model: string;
    basePath: string;
    plan: boolean;
    maxSteps: number;
    /** The `task` tool (sub-agents as child sessions); off when absent. */
    subagents?: boolean;
    /** Price table (model → prices per 1M tokens): cost on usage events and ledger model rows. */
    prices?: PriceTable;
    /** Per-turn budgets of the tool loop (tokens; cost for a priced model); off when absent. */
    turnTokenBudget?: number;
    turnCostBudget?: number;
  };
  /** Files the workspace holds before the turn (relative path → UTF-8 content). */
  files: Record<string, string>;
  /** Approval answers in the order the turn asks; a missing one allows. */
  approvals: ApprovalAnswer[];
  /** Answers to the turn's questions (ask_user) in the order it asks; a missing one is cancelled. */
  questions?: QuestionAnswer[];
  /** The runtime's injected clock (ledger created_at, checkpoint createdAt). */
  clock: ClockSpec;
  /** The runtime's injected id source (ledger record_id, checkpoint id). */
  ids: IdSpec;
  /** Ids the provider client mints itself (e.g. Gemini tool-call ids, absent from its wire format). */
  providerIds: IdSpec;
  /** receivedAt of native frame n handed to the translator (the lane's receive time in production). */
  frameClock: ClockSpec;
}

export interface CorpusEvent {
  /** The translator's key for the event (the lane derives the eventId from runId + key). */
  key: string;
  kind: CanonicalEventDraft['kind'];
  payload: JsonValue;
  /** Native ids for provenance and the sub-agent path, when the translator gave them. */
  identity?: JsonValue;
  namespace?: string[];
}

export interface CorpusFixture {
  corpusVersion: number;
  name: string;
  input: CorpusInput;
  /** The model provider exchanges, in order, as the server sent them. */
  exchanges: WireExchange[];
  outcome: TurnOutcome;
  /**
   * harness_auditable_calls rows as read back from the ledger: the thread's, then each sub-agent session's
   * (in the order they first appear), each session's in (turn_id, seq_within_turn) order.
   */
  ledgerRows: AuditableCall[];
  /** Checkpoint envelopes as read back from the saver, oldest first, per session in the same session order. */
  checkpoints: Checkpoint[];
  events: CorpusEvent[];
  /** The SessionState the latest checkpoint hydrates to, and its sha256 fingerprint (RFC 8785 JSON). */
  sessionState: SessionState;
  fingerprint: string;
  /** Fields recorded but not compared: wall-clock durations. */
  nonDeterministic: typeof NON_DETERMINISTIC;
}

/**
 * Timing the injected clock does not reach: measured with the process's monotonic clock around real I/O.
 * They are recorded (so the fixtures show realistic values) and left out of every comparison.
 */
export const NON_DETERMINISTIC = {
  ledgerRows: ['latency_ms'],
  events: { 'tool.completed': ['durationMs'] },
} as const;

/** Replaces the workspace path with {@link WORKSPACE_PLACEHOLDER} everywhere in a JSON value. */
export function withoutWorkspace<T>(value: T, workspace: string): T {
  const needle = JSON.stringify(workspace).slice(1, -1);
  return JSON.parse(JSON.stringify(value).split(needle).join(WORKSPACE_PLACEHOLDER)) as T;
}

/** A ledger row without its non-deterministic columns. */
export function comparableRow(row: AuditableCall): Partial<AuditableCall> {
  const copy: Partial<AuditableCall> = { ...row };
  for (const column of NON_DETERMINISTIC.ledgerRows) delete copy[column];
  return copy;
}

/** An event without its non-deterministic payload fields. */
export function comparableEvent(event: CorpusEvent): CorpusEvent {
  const drop = (NON_DETERMINISTIC.events as Record<string, readonly string[]>)[event.kind];
  if (!drop || typeof event.payload !== 'object' || event.payload === null || Array.isArray(event.payload))
    return event;
  const payload = { ...event.payload };
  for (const field of drop) delete payload[field];
  return { ...event, payload };
}

/** The ledger idempotency key of a row, as one string. */
export function ledgerKey(row: AuditableCall): string {
  return `${row.session_id}/${row.turn_id}/${row.stage_id}/${row.seq_within_turn}`;
}
