import type { AuditStatus, JsonValue } from '@agentlane/contract';
import { DENIED_REASON, deniedOutput } from '../approvals.js';
import { jsonSafe } from '../conversation.js';
import { boundResult } from '../output-bound.js';
import { toolResultRedactor } from '../redact.js';
import { BLANK_TOOL_NAME } from '../sse-repair.js';
import { type DefinedTool, type ToolContext, ToolError } from '../tools/define-tool.js';
import { audit, PREVIEW } from './audit.js';
import { outputLimit, type TurnContext } from './context.js';
import type { ToolCall } from './model-call.js';
import { CancelledError } from './parts.js';
import { endTerminals, pinnedRoot, toolContext, withRoot } from './tool-context.js';

/** How one tool call went, filled in as it runs. */
interface ToolRun {
  status: AuditStatus;
  output: JsonValue;
  error: string | undefined;
  approval: { decision: string; answeredBy?: string } | undefined;
  denied: boolean;
}

export interface ToolRunResult {
  status: AuditStatus;
  output: JsonValue;
  isError: boolean;
}

/** Runs one tool call; `sdkApprovalId` is set when the SDK asked for approval of this call. */
export async function runTool(
  ctx: TurnContext,
  call: ToolCall,
  sdkApprovalId: string | undefined,
): Promise<ToolRunResult> {
  const started = performance.now();
  const def = ctx.toolsByName.get(call.toolName);
  const run: ToolRun = { status: 'ok', output: null, error: undefined, approval: undefined, denied: false };
  ctx.emit({
    rt: 'tool.start',
    toolCallId: call.toolCallId,
    name: call.toolName,
    kind: def?.kind ?? 'other',
    input: call.input,
  });
  let tctx: ToolContext | undefined;
  try {
    if (!def)
      throw new ToolError(
        call.toolName === BLANK_TOOL_NAME
          ? 'no tool named "" (the call had an empty name)'
          : `no tool named ${call.toolName}`,
      );
    const problems = def.check(call.input);
    if (problems.length > 0) throw new ToolError(`invalid input for ${def.name}: ${problems.join('; ')}`);
    // Pinned before anything of the call runs (its approval card reads files too).
    const root = pinnedRoot(ctx);
    if (sdkApprovalId !== undefined) await askApproval(ctx, call, def, sdkApprovalId, run, root);
    const called = toolContext(ctx, call, root);
    tctx = called;
    const output = jsonSafe(await withRoot(root, () => def.execute(call.input as never, called)));
    // Redacted before it is bounded: a result past the bound is spilled to a file that is stored as it is.
    run.output = toolResultRedactor([...ctx.secrets]).json(output);
    if (ctx.io.signal.aborted) throw new CancelledError();
    await boundOutput(ctx, call, called, run);
  } catch (err) {
    if (err instanceof CancelledError || ctx.io.signal.aborted) {
      run.status = 'cancelled';
      run.error = 'cancelled';
    } else {
      run.status = 'error';
      run.error = (err as Error).message ?? String(err);
    }
  }
  if (tctx) endTerminals(ctx, call, tctx);
  return endTool(ctx, call, performance.now() - started, run);
}

/**
 * The SDK decided that this call needs approval; the tool describes the card (computed now, so a diff sees
 * what earlier calls of the step changed). A rejection throws (the call does not run).
 */
async function askApproval(
  ctx: TurnContext,
  call: ToolCall,
  def: DefinedTool,
  sdkApprovalId: string,
  run: ToolRun,
  root: string | undefined,
): Promise<void> {
  const where = { workspace: ctx.deps.workspace, ...(root !== undefined ? { workspaceRoot: root } : {}) };
  const described =
    typeof def.needsApproval === 'function' ? await def.needsApproval(call.input as never, where) : null;
  const ask = described ?? { title: `Run ${def.name}`, subject: { kind: 'tool_call' as const } };
  const approvalId = `apr-${ctx.deps.scope ?? ''}${call.toolCallId}`;
  ctx.emit({
    rt: 'approval',
    approvalId,
    toolCallId: call.toolCallId,
    title: ask.title,
    subject: ask.subject,
    input: call.input,
    ...(ask.diff !== undefined ? { diff: ask.diff } : {}),
  });
  const answer = await ctx.io.awaitApproval(approvalId);
  const allowed = answer.outcome === 'selected' && answer.optionId === 'allow';
  run.approval = {
    decision: answer.outcome === 'cancelled' ? 'cancelled' : allowed ? 'allow_once' : 'reject_once',
    ...(answer.answeredBy ? { answeredBy: answer.answeredBy } : {}),
  };
  if (ctx.io.signal.aborted) throw new CancelledError();
  ctx.answered.push({
    sdkApprovalId,
    toolCallId: call.toolCallId,
    approved: allowed,
    ...(allowed ? {} : { reason: DENIED_REASON }),
  });
  if (!allowed) {
    run.denied = true;
    throw new ToolError(DENIED_REASON);
  }
}

/** Over its own bound or what the turn has left: the result goes to an artifact, a preview stays. */
async function boundOutput(ctx: TurnContext, call: ToolCall, tctx: ToolContext, run: ToolRun): Promise<void> {
  const out = ctx.output;
  const room = Math.min(out.bounds.toolResultBytes, Math.max(0, out.bound - out.shown));
  const bounded = await boundResult(
    run.output,
    room,
    out.bounds.outputDir,
    `${ctx.deps.scope ?? ''}${call.toolCallId}`,
  );
  out.shown += bounded.bytes;
  if (!bounded.spilled) return;
  run.output = bounded.output;
  tctx.artifact({
    name: `result of ${call.toolName}`,
    contentType: 'application/json',
    file: bounded.spilled,
    description: `the tool's whole result (${bounded.spilled.bytes} bytes)`,
  });
  // One warning per bound and turn: a result cut by the turn's bound (turnOutputBytes) is the same bound a
  // command's terminal output may have reached first (commands run side by side).
  const byTurn = room < out.bounds.toolResultBytes;
  const warned = byTurn ? 'outputWarned' : 'resultWarned';
  if (!out[warned]) outputLimit(ctx, 'a tool result', byTurn ? 'turnOutputBytes' : 'toolResultBytes', room);
  out[warned] = true;
}

/**
 * The call's end frame and ledger row; what the model reads of it. The result and error are redacted here, as
 * the lane redacts the events: what enters the conversation (and the checkpoint) must not keep what the
 * tool.completed event leaves out.
 */
function endTool(ctx: TurnContext, call: ToolCall, latency: number, run: ToolRun): ToolRunResult {
  const { status, approval } = run;
  const redactor = toolResultRedactor([...ctx.secrets]);
  const output = redactor.json(run.output);
  const error = run.error === undefined ? undefined : redactor.text(run.error);
  ctx.emit({
    rt: 'tool.end',
    toolCallId: call.toolCallId,
    status: status === 'ok' ? 'completed' : status === 'error' ? 'failed' : 'cancelled',
    ...(status === 'ok' ? { output } : { error: error ?? 'failed' }),
    durationMs: Math.round(latency),
  });
  audit(ctx, 'tool-loop', 'tool', status, latency, {
    kind: 'tool_call',
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    input: call.input,
    ...(status === 'ok'
      ? { outputPreview: JSON.stringify(output).slice(0, PREVIEW) }
      : { error: error ?? 'failed' }),
    ...(approval ? { approval } : {}),
  });
  return {
    status,
    // A denial is stored as the SDK's execution-denied output (what the model reads of it).
    output: status === 'ok' ? output : run.denied ? deniedOutput(DENIED_REASON) : (error ?? 'failed'),
    isError: status !== 'ok',
  };
}
