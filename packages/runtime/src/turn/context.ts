import type { ConversationMessage, PlanEntry } from '@agentlane/contract';
import type { TurnInput, TurnIO, TurnOutcome } from '@agentlane/engine-kit';
import type { LanguageModel } from 'ai';
import type { AnsweredApproval } from '../approvals.js';
import { remainingBudget } from '../budget.js';
import { frame, type RuntimeFrame } from '../frames.js';
import { createModel, type HttpObservation, type ModelSettings, secretsOf } from '../model.js';
import { DEFAULT_OUTPUT_BOUNDS, type OutputBounds, TurnTextBound } from '../output-bound.js';
import type { PluginTurnContext } from '../plugin.js';
import type { ModelPrice } from '../prices.js';
import { Redactor } from '../redact.js';
import { addSpend, emptySpend, type Spend } from '../spend.js';
import { taskTool } from '../subagent.js';
import { ToolCallIds } from '../tool-call-ids.js';
import type { DefinedTool } from '../tools/define-tool.js';
import { latestMoved, loadLatest } from './checkpoint.js';
import type { SessionMemory, TurnDeps } from './deps.js';

/** What the turn has shown of terminal output and tool results, against its bounds. */
export interface TurnOutput {
  /** Terminal output and tool result bytes shown this turn. */
  shown: number;
  /** The turn's bound on them (turnOutputBytes); past it tools keep their output elsewhere. */
  readonly bound: number;
  outputWarned: boolean;
  resultWarned: boolean;
  readonly bounds: OutputBounds;
  /** Model text shown this turn, against turnTextBytes. */
  readonly text: TurnTextBound;
}

/**
 * One turn's state, shared by its stages (anchor-plan, tool-loop, synthesize, post-turn) and the model and tool
 * calls they make. Made once per turn by {@link createTurnContext}; the stages change the fields that are not
 * readonly as the turn goes on.
 */
export interface TurnContext {
  readonly deps: TurnDeps;
  readonly turn: TurnInput;
  readonly io: TurnIO;
  readonly emit: (f: RuntimeFrame) => void;
  /** The driver's model settings with the run's model, when the run names one. */
  readonly settings: ModelSettings;
  /** What the turn redacts wherever it keeps or shows text: the model's keys and the host's known secrets. */
  readonly secrets: readonly string[];
  readonly model: LanguageModel;
  /** The HTTP response the model's fetch saw last (reset before every model call). */
  readonly observed: { last: HttpObservation | null };
  readonly mem: SessionMemory;
  readonly pctx: PluginTurnContext;
  /** seq_within_turn of the turn's last ledger row. */
  seq: number;
  readonly spend: Spend;
  /** Set only when the price table names the run's model. */
  readonly price: ModelPrice | undefined;
  /** The session's conversation with this turn's messages appended as they come. */
  readonly conversation: ConversationMessage[];
  readonly callIds: ToolCallIds;
  plan: PlanEntry[];
  readonly tools: DefinedTool[];
  readonly toolsByName: Map<string, DefinedTool>;
  readonly output: TurnOutput;
  /** Approvals answered since the last model call: the next call hands them to the SDK as its approval parts. */
  answered: AnsweredApproval[];
  /** The turn's answer (the loop's last text, or the synthesized one). */
  answer: string;
  /** Set when a limit stopped the loop: the step number the synthesizing call gets. */
  synthesisStep: number;
}

/** How a sub-agent's turn runs (the staged turn itself, passed in to keep the modules acyclic). */
export type RunTurn = (deps: TurnDeps, turn: TurnInput, io: TurnIO) => Promise<TurnOutcome>;

const SUBAGENT_PROMPT =
  'You are a sub-agent: another agent gave you one task. Do it with the tools, then answer with the result.';

/** The turn's context: the model, the session loaded (or reloaded when another runtime moved it on), the tools. */
export async function createTurnContext(
  deps: TurnDeps,
  turn: TurnInput,
  io: TurnIO,
  runTurn: RunTurn,
): Promise<TurnContext> {
  const emit = (f: RuntimeFrame) => io.emit(frame(f));
  const settings: ModelSettings = { ...deps.settings, ...(turn.model ? { model: turn.model } : {}) };
  const observed: TurnContext['observed'] = { last: null };
  const model = (deps.modelFactory ?? createModel)(settings, (o) => {
    observed.last = o;
  });
  const mem = deps.session;
  if (!mem.loaded || (await latestMoved(deps))) await loadLatest(deps);
  const spend = deps.spend ?? emptySpend();
  const conversation = [...mem.conversation];
  const secrets = [...secretsOf(settings), ...(deps.knownSecrets ?? [])];
  const redactor = new Redactor(secrets);
  const callIds = new ToolCallIds(conversation, (text) => redactor.text(text) !== text);
  conversation.push({
    id: `${turn.turnId}:user`,
    role: 'user',
    parts: [{ type: 'text', text: turn.prompt }],
  });
  const tools = turnTools(deps, turn, io, spend, runTurn);
  const ctx: TurnContext = {
    deps,
    turn,
    io,
    emit,
    settings,
    secrets,
    model,
    observed,
    mem,
    pctx: { threadId: deps.threadId, turnId: turn.turnId, prompt: turn.prompt, workspace: deps.workspace },
    seq: 0,
    spend,
    price: deps.prices?.[settings.model],
    conversation,
    callIds,
    plan: mem.plan,
    tools,
    toolsByName: new Map(tools.map((t) => [t.name, t])),
    output: turnOutput(deps, (limit) => outputLimit(ctx, 'model text', 'turnTextBytes', limit)),
    answered: [],
    answer: '',
    synthesisStep: 0,
  };
  return ctx;
}

function turnOutput(deps: TurnDeps, textLimit: (limit: number) => void): TurnOutput {
  const bounds: OutputBounds = { ...DEFAULT_OUTPUT_BOUNDS, ...deps.outputBounds };
  return {
    shown: 0,
    bound: deps.turnOutputBytes ?? 8_000_000,
    outputWarned: false,
    resultWarned: false,
    bounds,
    text: new TurnTextBound(bounds.turnTextBytes, bounds.outputDir, textLimit),
  };
}

/** The harness.warning of an output bound reached (`output_limit`). */
export function outputLimit(ctx: TurnContext, what: string, setting: string, limit: number): void {
  ctx.emit({
    rt: 'warning',
    code: 'output_limit',
    message: `${what} of this turn passed ${limit} bytes (${setting}): the rest is in an artifact, not shown`,
    detail: { limit },
  });
}

/** The turn's tools: the driver's, plus `task` (a sub-agent's own turn) while the depth allows it. */
function turnTools(
  deps: TurnDeps,
  turn: TurnInput,
  io: TurnIO,
  spend: Spend,
  runTurn: RunTurn,
): DefinedTool[] {
  const sub = deps.subagents;
  if (!sub || sub.depth >= sub.maxDepth) return deps.tools;
  const task = taskTool({
    parentThreadId: deps.threadId,
    parent: turn,
    io,
    runChildTurn: async (child, childIo) => {
      const memory: SessionMemory = {
        loaded: true,
        conversation: [],
        plan: [],
        checkpointId: undefined,
        saved: undefined,
      };
      const childSpend = emptySpend();
      try {
        const outcome = await runTurn(
          {
            ...deps,
            threadId: child.sessionId,
            session: memory,
            plan: sub.plan,
            scope: child.scope,
            subagents: { ...sub, depth: sub.depth + 1 },
            systemPrompt: `${deps.systemPrompt}\n\n${SUBAGENT_PROMPT}`,
            spend: childSpend,
            budget: remainingBudget(deps.budget ?? {}, spend),
          },
          child.turn,
          childIo,
        );
        return { outcome, conversation: memory.conversation };
      } finally {
        // What the child spent is the parent turn's too, also when the child failed or was cancelled.
        addSpend(spend, childSpend.tokens, childSpend.cost);
      }
    },
  });
  return [...deps.tools, task as DefinedTool];
}
