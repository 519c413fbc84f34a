import type { ApprovalOptionKind, JsonValue, StopReason } from '@agentlane/contract';
import { emptyIdMap, type IdMap, StepBuilder, type TranslationContext } from '@agentlane/engine-kit';
import type { LimitCode } from '@agentlane/runtime';
import { emptyTrack, type LedgerTrack } from './cutoff-rows.js';

type OpenText = { id: string; text: string };

/**
 * A tool call: its name, how many characters of its input were streamed so far (the offset in the keys of its
 * input deltas) and, once the whole input was sent (the tool-call part), a short hash of it (so the tool's
 * start does not send it again).
 */
export type ToolEntry = { name: string; inputChars: number; started: boolean; inputHash?: string };

/**
 * The translator's state: plain JSON, replaced (never mutated) by every step. What grows with the turn's tool
 * calls (and sub-agents) is kept in persistent maps (engine-kit's IdMap), so a step copies a bounded part of it.
 */
export type RuntimeTranslatorState = {
  texts: Record<string, OpenText>;
  reasoning: Record<string, OpenText>;
  /** Tool calls by id. */
  tools: IdMap<ToolEntry>;
  warnings: number;
  usageSteps: number;
  turnStartedAt: string | null;
  stopReason: string | null;
  ended: boolean;
  /** Each sub-agent's own translator state, keyed by its namespace path joined with '/'. */
  children?: IdMap<RuntimeTranslatorState>;
  /** Approval / question ids asked inside a sub-agent → its namespace (their answers arrive at the top). */
  scoped?: IdMap<string[]>;
  /** Tool calls that have their tool.completed (the others are closed when the turn ends without them). */
  toolsEnded?: IdMap<true>;
  /** Approvals and questions asked and not answered yet, by id. */
  openAsks?: Record<string, 'approval' | 'question'>;
  /** This scope's ledger rows and started tool calls: a call cut off without a row gets one at the turn's end. */
  ledger?: LedgerTrack;
};

/** The state a turn (or a sub-agent's scope) starts from. */
export function initialState(ctx: Pick<TranslationContext, 'threadId' | 'turnId'>): RuntimeTranslatorState {
  return {
    texts: {},
    reasoning: {},
    tools: emptyIdMap(),
    warnings: 0,
    usageSteps: 0,
    turnStartedAt: null,
    stopReason: null,
    ended: false,
    children: emptyIdMap(),
    scoped: emptyIdMap(),
    ledger: emptyTrack(ctx.threadId, ctx.turnId),
  };
}

/**
 * How a turn whose tool loop a limit stopped ends (the limit's code is the raw stop reason): the step limit is
 * ACP's max_turn_requests, the token budget its max_tokens; a cost budget has no canonical reason of its own.
 */
export const LIMIT_STOP: Record<LimitCode, StopReason> = {
  step_limit: 'max_turn_requests',
  token_budget: 'max_tokens',
  cost_budget: 'other',
};

/** Approval options the built-in engine offers; the chosen optionId maps back to its kind. */
export const APPROVAL_OPTIONS: { optionId: string; label: string; kind: ApprovalOptionKind }[] = [
  { optionId: 'allow', label: 'Allow', kind: 'allow_once' },
  { optionId: 'reject', label: 'Reject', kind: 'reject_once' },
];

/** One built-in translation step: engine-kit's builder over this state (events carry no identity). */
export type Step = StepBuilder<RuntimeTranslatorState>;

export function newStep(state: RuntimeTranslatorState, key: string, receivedAt: string): Step {
  return new StepBuilder({ state, frameKey: key, receivedAt });
}

/**
 * The next number of the run-wide counter some keys of this translator end in (`warning:<n>`, `error:<n>`,
 * `terminal:<id>:<n>`, ...): the recorded corpus pins these keys, so they stay as they were.
 */
export function nextCount(step: Step): number {
  const n = step.state.warnings + 1;
  step.state = { ...step.state, warnings: n };
  return n;
}

/** A harness.warning keyed by the run-wide counter (`warning:<n>`). */
export function warnCounted(step: Step, code: string, message: string, detail?: JsonValue): void {
  step.emit(`warning:${nextCount(step)}`, {
    kind: 'harness.warning',
    payload: { code, message, ...(detail !== undefined ? { detail } : {}) },
  });
}

/** Updates this scope's ledger track. */
export function track(step: Step, change: (t: LedgerTrack) => LedgerTrack): void {
  step.state = { ...step.state, ledger: change(step.state.ledger ?? emptyTrack('', '')) };
}

export function markAsked(step: Step, id: string, ask: 'approval' | 'question'): void {
  step.state = { ...step.state, openAsks: { ...(step.state.openAsks ?? {}), [id]: ask } };
}

export function markAnswered(step: Step, id: string): void {
  if (!step.state.openAsks?.[id]) return;
  const { [id]: _, ...rest } = step.state.openAsks;
  step.state = { ...step.state, openAsks: rest };
}
