import type { JsonValue } from '@agentlane/contract';
import { emptyIdMap, type IdMap } from '../persistent/id-map.js';

/** External engines show no stages: every row of their turn is in this one stage. */
export const ENGINE_AUDIT_STAGE = 'engine-turn';

export interface EngineAuditOptions {
  /** The row's `provider`: the adapter's provider id. */
  provider: string;
  /** The row's `transport`: the engine protocol the calls were reported over (e.g. `acp`, `opencode-http`). */
  transport: string;
}

// Plain JSON (null, never optional) so the state can live inside a translator's JSON state.

export type UsageSeen = {
  inputTokens: number | null;
  outputTokens: number | null;
  reasoningTokens: number | null;
  cachedInputTokens: number | null;
  costAmount: number | null;
  costCurrency: string | null;
};

export type ToolSeen = {
  name: string;
  input: JsonValue;
  startedAt: string | null;
  approval: { decision: string; answeredBy: string | null } | null;
  ended: boolean;
};

export type TurnSeen = {
  startedAt: string | null;
  prompt: string | null;
  /** The engine did something a model does (text, reasoning, a tool call, usage): a model row is due. */
  active: boolean;
  text: string | null;
  /** The turn's tool calls in the order they started, keyed `#<toolCallId>` (never an array index: see IdMap). */
  toolCalls: IdMap<{ toolCallId: string; toolName: string }>;
  error: string | null;
  turnUsage: UsageSeen | null;
  /** Per-step usage by event key: a re-emitted step replaces itself instead of counting twice. */
  stepUsage: { [key: string]: UsageSeen };
  sessionUsage: UsageSeen | null;
};

export type EngineAuditState = {
  /** seq_within_turn of the last row written. */
  seq: number;
  /** The time of the last frame seen: created_at of rows that only the end of the source closes. */
  lastAt: string | null;
  /** The model in use, as the turn or the engine last named it. */
  model: string | null;
  /** The run created the engine session, so session-cumulative figures are this turn's figures. */
  newSession: boolean;
  turn: TurnSeen | null;
  /** By toolCallId; persistent, like approvals, so a step copies a bounded part of them, never all. */
  tools: IdMap<ToolSeen>;
  /** approvalId → toolCallId, to put the decision on the tool's row. */
  approvals: IdMap<string>;
};

export function initialEngineAuditState(): EngineAuditState {
  return {
    seq: 0,
    lastAt: null,
    model: null,
    newSession: false,
    turn: null,
    tools: emptyIdMap(),
    approvals: emptyIdMap(),
  };
}
