import type { ChildState, ConversationMessage, JsonValue } from '@agentlane/contract';
import type { TurnInput, TurnIO, TurnOutcome } from '@agentlane/engine-kit';
import { Type } from 'typebox';
import { frame, type RuntimeFrame } from './frames.js';
import { type DefinedTool, defineTool, type ToolContext, ToolError } from './tools/define-tool.js';

/** How deep sub-agents may nest: depth 0 is the session's own turn; a turn at maxDepth gets no task tool. */
export interface SubagentSettings {
  depth: number;
  maxDepth: number;
  /** Whether a child's staged turn runs the anchor-plan stage (default false: its prompt is one task). */
  plan: boolean;
}

export const TASK_TOOL = 'task';
const PREVIEW = 200;

const TaskInput = Type.Object({
  description: Type.String({ description: 'A short (3-7 words) title of the task' }),
  prompt: Type.String({ description: 'The full instructions for the sub-agent; it sees nothing else' }),
});
type TaskInput = { description: string; prompt: string };

/** What the child's own turn needs from the parent; the parent's runStagedTurn is passed in (no import cycle). */
export interface ChildRunner {
  parentThreadId: string;
  parent: TurnInput;
  io: TurnIO;
  /** Runs the child's staged turn with its own session id, memory and TurnIO. */
  runChildTurn(
    child: { sessionId: string; turn: TurnInput; scope: string },
    io: TurnIO,
  ): Promise<{ outcome: TurnOutcome; conversation: ConversationMessage[] }>;
}

/**
 * The `task` tool: runs a sub-agent as a child session of this thread — its own staged turn with its own
 * conversation, the same model settings and tools (without `task` past the depth limit), its own ledger rows
 * (session id `<thread>:task:<toolCallId>`, turn id `<turn>:task:<toolCallId>`) and checkpoints. Its frames are
 * wrapped in the parent's source lane, so its events appear on the same thread tagged with its namespace,
 * between child.started and child.completed in the parent.
 */
export function taskTool(runner: ChildRunner): DefinedTool<TaskInput> {
  return defineTool<TaskInput>({
    name: TASK_TOOL,
    description:
      'Start a sub-agent for a self-contained task (it has the same workspace tools but its own fresh conversation). ' +
      'Give it complete instructions; it answers with its result.',
    inputSchema: TaskInput,
    kind: 'other',
    execute: (input, ctx) => runChild(runner, input, ctx),
  });
}

async function runChild(runner: ChildRunner, input: TaskInput, ctx: ToolContext): Promise<JsonValue> {
  const { io, parent } = runner;
  const childSessionId = `${runner.parentThreadId}:task:${ctx.toolCallId}`;
  const childRunId = `${parent.turnId}:task:${ctx.toolCallId}`;
  const emit = (f: RuntimeFrame) => io.emit(frame(f));
  const state = (s: ChildState) => emit({ rt: 'child.state', childSessionId, state: s });
  emit({
    rt: 'child.start',
    childSessionId,
    childRunId,
    parentToolCallId: ctx.toolCallId,
    title: input.description,
    description: input.prompt.slice(0, PREVIEW),
  });
  state('running');
  // The child's answers come through the parent's TurnIO (the same approval and question routes); while it
  // waits for one, the child requires action.
  const childIo: TurnIO = {
    emit: (f) => emit({ rt: 'child', childSessionId, frame: f as unknown as RuntimeFrame }),
    signal: ctx.signal,
    awaitApproval: async (id) => {
      state('requires_action');
      const answer = await io.awaitApproval(id);
      state('running');
      return answer;
    },
    awaitQuestion: async (id) => {
      state('requires_action');
      const answer = await io.awaitQuestion(id);
      state('running');
      return answer;
    },
  };
  let outcome: TurnOutcome;
  let conversation: ConversationMessage[] = [];
  try {
    ({ outcome, conversation } = await runner.runChildTurn(
      {
        sessionId: childSessionId,
        // Approval and question ids of the child never collide with the parent's.
        scope: `t-${ctx.toolCallId}-`,
        turn: {
          threadId: childSessionId,
          runId: childRunId,
          turnId: childRunId,
          prompt: input.prompt,
          parentRunId: parent.runId,
          ...(parent.model ? { model: parent.model } : {}),
        },
      },
      childIo,
    ));
  } catch (err) {
    outcome = { outcome: 'failed', error: (err as Error).message ?? String(err) };
  }
  const answer = lastAnswer(conversation);
  emit({
    rt: 'child.end',
    childSessionId,
    status: outcome.outcome,
    ...(answer ? { summary: answer.slice(0, PREVIEW) } : {}),
  });
  if (outcome.outcome === 'failed')
    throw new ToolError(`the sub-agent failed: ${outcome.error ?? 'unknown'}`);
  return { childSessionId, status: outcome.outcome, answer };
}

function lastAnswer(conversation: ConversationMessage[]): string {
  for (let i = conversation.length - 1; i >= 0; i--) {
    const m = conversation[i];
    if (m?.role !== 'assistant') continue;
    const text = m.parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
    if (text) return text;
  }
  return '';
}
