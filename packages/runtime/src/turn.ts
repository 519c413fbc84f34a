import type { CheckpointSaver } from '@agentlane/checkpoints';
import {
  AUDIT_RECORD_VERSION,
  type AuditableCall,
  type AuditPayload,
  type AuditStatus,
  type ConversationMessage,
  type JsonObject,
  type JsonValue,
  type PlanEntry,
  type StageId,
} from '@agentlane/contract';
import type { TurnInput, TurnIO, TurnOutcome } from '@agentlane/engine-kit';
import { jsonSchema, type LanguageModel, streamText, type ToolSet, tool } from 'ai';
import {
  type AnsweredApproval,
  DENIED_REASON,
  deniedOutput,
  sdkNeedsApproval,
  withApprovalParts,
} from './approvals.js';
import { budgetHit, type LimitHit, remainingBudget, type TurnBudget } from './budget.js';
import { jsonSafe, toModelMessages } from './conversation.js';
import { DeltaCoalescer } from './delta-coalescer.js';
import { frame, type RuntimeFrame } from './frames.js';
import { authMethodOf, createModel, type HttpObservation, type ModelSettings } from './model.js';
import { ModelStreamTimeout, ModelStreamTruncated, STREAM_SLICE_MS } from './model-fetch.js';
import { boundResult, DEFAULT_OUTPUT_BOUNDS, type OutputBounds, TurnTextBound } from './output-bound.js';
import type { HarnessPlugin, PluginTurnContext } from './plugin.js';
import { costOf, type PriceTable } from './prices.js';
import { addSpend, emptySpend, type Spend } from './spend.js';
import { type SubagentSettings, taskTool } from './subagent.js';
import { ToolCallIds, withUniqueCallId } from './tool-call-ids.js';
import { type DefinedTool, type ToolContext, ToolError } from './tools/define-tool.js';

export interface TurnDeps {
  threadId: string;
  workspace: string;
  settings: ModelSettings;
  tools: DefinedTool[];
  plugins: HarnessPlugin[];
  saver: CheckpointSaver | undefined;
  plan: boolean;
  maxSteps: number;
  /** Per-turn token / cost limits of the tool loop (sub-agents' spending included); absent: none. */
  budget?: TurnBudget;
  /** Where the turn adds up what it spends; a sub-agent's turn gets its own, which the parent then adds. */
  spend?: Spend;
  systemPrompt: string;
  clock: () => string;
  ids: () => string;
  /** The session's conversation so far (loaded from the latest checkpoint on the first turn). */
  session: SessionMemory;
  /** Model id → price per 1M tokens; the run's model absent from it: no cost fields. */
  prices?: PriceTable;
  /** Sub-agents: the `task` tool is offered while depth < maxDepth. Absent: no task tool. */
  subagents?: SubagentSettings;
  /** Terminal output and tool results shown per turn (default 8 MB); past it they go to overflow files. */
  turnOutputBytes?: number;
  /** Model text per turn, one tool result, where overflow files go (DEFAULT_OUTPUT_BOUNDS). */
  outputBounds?: Partial<OutputBounds>;
  /** Prefix of approval and question ids (a child's never collide with its parent's). */
  scope?: string;
  /** Deltas of one block read in one turn of the event loop become one frame (default true; see DeltaCoalescer). */
  coalesceDeltas?: boolean;
  /** Test seam: build the model (default: the AI SDK provider with an observing fetch). */
  modelFactory?: (settings: ModelSettings, observe: (o: HttpObservation) => void) => LanguageModel;
}

export interface SessionMemory {
  loaded: boolean;
  conversation: ConversationMessage[];
  plan: PlanEntry[];
  checkpointId: string | undefined;
  version: number;
}

const PREVIEW = 200;
const SUBAGENT_PROMPT =
  'You are a sub-agent: another agent gave you one task. Do it with the tools, then answer with the result.';

/** One turn through the stages anchor-plan → tool-loop → synthesize → post-turn. */
export async function runStagedTurn(deps: TurnDeps, turn: TurnInput, io: TurnIO): Promise<TurnOutcome> {
  const emit = (f: RuntimeFrame) => io.emit(frame(f));
  const settings: ModelSettings = { ...deps.settings, ...(turn.model ? { model: turn.model } : {}) };
  let observation: HttpObservation | null = null;
  const model = (deps.modelFactory ?? createModel)(settings, (o) => {
    observation = o;
  });
  const mem = deps.session;
  if (!mem.loaded || (await latestMoved(deps))) await loadLatest(deps);
  const pctx: PluginTurnContext = {
    threadId: deps.threadId,
    turnId: turn.turnId,
    prompt: turn.prompt,
    workspace: deps.workspace,
  };
  let seq = 0;
  const spend = deps.spend ?? emptySpend();
  /** Set only when the price table names the run's model. */
  const price = deps.prices?.[settings.model];
  const conversation = [...mem.conversation];
  const callIds = new ToolCallIds(conversation);
  conversation.push({
    id: `${turn.turnId}:user`,
    role: 'user',
    parts: [{ type: 'text', text: turn.prompt }],
  });
  let plan = mem.plan;
  const sub = deps.subagents;
  const tools: DefinedTool[] =
    sub && sub.depth < sub.maxDepth
      ? [
          ...deps.tools,
          taskTool({
            parentThreadId: deps.threadId,
            parent: turn,
            io,
            runChildTurn: async (child, childIo) => {
              const memory: SessionMemory = {
                loaded: true,
                conversation: [],
                plan: [],
                checkpointId: undefined,
                version: 0,
              };
              const childSpend = emptySpend();
              try {
                const outcome = await runStagedTurn(
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
          }) as DefinedTool,
        ]
      : deps.tools;
  const toolsByName = new Map(tools.map((t) => [t.name, t]));
  /** Terminal output bytes shown this turn, against the turn's bound (past it tools keep output elsewhere). */
  let turnOutput = 0;
  let outputWarned = false;
  let resultWarned = false;
  const turnOutputBound = deps.turnOutputBytes ?? 8_000_000;
  const bounds: OutputBounds = { ...DEFAULT_OUTPUT_BOUNDS, ...deps.outputBounds };
  const outputLimit = (what: string, setting: string, limit: number) =>
    emit({
      rt: 'warning',
      code: 'output_limit',
      message: `${what} of this turn passed ${limit} bytes (${setting}): the rest is in an artifact, not shown`,
      detail: { limit },
    });
  const textBound = new TurnTextBound(bounds.turnTextBytes, bounds.outputDir, (limit) =>
    outputLimit('model text', 'turnTextBytes', limit),
  );
  /** Approvals answered since the last model call: the next call hands them to the SDK as its approval parts. */
  let answered: AnsweredApproval[] = [];

  const audit = (
    stage: StageId,
    callClass: 'model' | 'tool',
    status: AuditStatus,
    latency: number,
    payload: AuditPayload,
    extra: { finish_reason?: string | null; http_status?: number | null } = {},
  ) => {
    seq += 1;
    const row: AuditableCall = {
      record_id: deps.ids(),
      audit_record_version: AUDIT_RECORD_VERSION,
      session_id: deps.threadId,
      turn_id: turn.turnId,
      stage_id: stage,
      seq_within_turn: seq,
      created_at: deps.clock(),
      actor_kind: 'runtime',
      session_auth_method: callClass === 'model' ? authMethodOf(settings) : 'none',
      call_class: callClass,
      provider: callClass === 'model' ? settings.api : 'builtin',
      model: callClass === 'model' ? settings.model : null,
      transport: callClass === 'model' ? settings.api : 'in-process',
      status,
      latency_ms: Math.max(0, Math.round(latency)),
      finish_reason: extra.finish_reason ?? null,
      http_status: extra.http_status ?? null,
      payload,
    };
    emit({ rt: 'audit', row });
  };

  const checkpoint = async (stage: StageId) => {
    mem.conversation = conversation;
    mem.plan = plan;
    if (!deps.saver) return;
    const id = deps.ids();
    mem.version += 1;
    const saver = deps.saver;
    await withBusyRetry(() =>
      saver.put({
        id,
        sessionId: deps.threadId,
        stageId: stage,
        createdAt: deps.clock(),
        schemaVersion: 1,
        channels: {
          conversation: {
            kind: 'last_value',
            version: mem.version,
            value: { value: jsonSafe(conversation) },
          },
          plan: { kind: 'last_value', version: mem.version, value: { value: jsonSafe(plan) } },
        },
        ...(mem.checkpointId ? { parentCheckpointId: mem.checkpointId } : {}),
      }),
    );
    mem.checkpointId = id;
    emit({ rt: 'checkpoint', stage, checkpointId: id });
  };

  const pluginHook = async (run: (p: HarnessPlugin) => unknown, label: string) => {
    for (const p of deps.plugins) {
      try {
        await run(p);
      } catch (err) {
        emit({
          rt: 'warning',
          code: 'plugin_failed',
          message: `plugin ${p.name} failed in ${label}: ${(err as Error).message}`,
        });
      }
    }
  };
  const systemFor = async (stage: StageId, base: string) => {
    const extras: string[] = [];
    await pluginHook(async (p) => {
      const s = await p.beforeModelCall?.({ ...pctx, stage });
      if (s) extras.push(s);
    }, 'beforeModelCall');
    return [base, ...extras].join('\n\n');
  };

  /** One streamed model call; every stream part is emitted; returns what the step produced. */
  const modelCall = async (stage: StageId, step: number, system: string, withTools: boolean) => {
    const started = performance.now();
    observation = null;
    const messages = withApprovalParts(toModelMessages(conversation), answered);
    answered = [];
    const last = [...conversation].reverse().find((m) => m.role === 'user');
    const request = {
      messageCount: messages.length,
      toolNames: withTools ? tools.map((t) => t.name) : [],
      ...(last ? { promptPreview: partText(last).slice(0, PREVIEW) } : {}),
    };
    // What the call's ledger row needs if the process dies before the call ends (see cutoff-rows.ts).
    emit({
      rt: 'model.start',
      sessionId: deps.threadId,
      turnId: turn.turnId,
      stage,
      step,
      provider: settings.api,
      model: settings.model,
      transport: settings.api,
      authMethod: authMethodOf(settings),
      request,
    });
    const sdkTools: ToolSet = {};
    if (withTools)
      for (const t of tools)
        sdkTools[t.name] = tool({
          description: t.description,
          inputSchema: jsonSchema(t.inputSchema as never),
          needsApproval: sdkNeedsApproval(t, deps.workspace),
        });
    let streamError: unknown = null;
    let text = '';
    const toolCalls: { toolCallId: string; toolName: string; input: JsonValue }[] = [];
    /** The SDK's tool-approval-request parts: tool call id → the SDK's approval id. */
    const approvalRequests = new Map<string, string>();
    let finishReason: string | null = null;
    let usage: JsonObject = {};
    const callText = textBound.call(`${deps.scope ?? ''}${turn.turnId}-${stage}-${step}`);
    const deltas = new DeltaCoalescer(emit, deps.coalesceDeltas !== false);
    try {
      const result = streamText({
        model,
        system,
        messages,
        ...(withTools ? { tools: sdkTools } : {}),
        abortSignal: io.signal,
        maxRetries: 0,
        onError: ({ error }) => {
          streamError = error;
        },
      });
      callIds.startCall();
      let slice = performance.now();
      for await (const sdkPart of result.fullStream) {
        // The SDK's own pipeline may run far ahead of the network slices (model-fetch.ts): the consumer
        // also lets the event loop in every few ms.
        if (performance.now() - slice > STREAM_SLICE_MS) {
          await new Promise((r) => setImmediate(r));
          slice = performance.now();
        }
        const part = callText.pass(withUniqueCallId(sdkPart, callIds));
        // Text past the turn's bound goes to the call's overflow file: read on once the file caught up.
        if (callText.busy()) await callText.drained();
        if (part === null) continue;
        const safe = safePart(part as unknown as Record<string, unknown>);
        // A step's cost rides on its finish-step frame (the translator makes it the step's usage.updated).
        const cost =
          part.type === 'finish-step' ? costOf(price, numbers(safe.usage as JsonObject)) : undefined;
        if (stage !== 'anchor-plan') deltas.part(stage, step, safe, cost);
        if (part.type === 'text-delta') text += part.text;
        else if (part.type === 'tool-call')
          toolCalls.push({
            toolCallId: part.toolCallId,
            toolName: part.toolName,
            input: jsonSafe(part.input),
          });
        else if (part.type === 'tool-approval-request')
          approvalRequests.set(part.toolCall.toolCallId, part.approvalId);
        else if (part.type === 'finish-step') {
          finishReason = part.finishReason;
          usage = safe.usage as JsonObject;
        } else if (part.type === 'error') streamError = part.error;
      }
    } catch (err) {
      streamError = err;
    } finally {
      deltas.flush();
    }
    for (const { kind, spilled } of await callText.close())
      emit({
        rt: 'artifact',
        name: `${kind === 'text' ? 'answer' : 'reasoning'} past turnTextBytes (${stage}, step ${step})`,
        contentType: 'text/plain; charset=utf-8',
        file: spilled,
      });
    const obs = observation as HttpObservation | null;
    const latency = performance.now() - started;
    const cancelled = io.signal.aborted;
    const status: AuditStatus = cancelled ? 'cancelled' : streamError ? 'error' : 'ok';
    const usageOut = numbers(usage);
    const callCost = Object.keys(usageOut).length > 0 ? costOf(price, usageOut) : undefined;
    addSpend(spend, usageOut, callCost);
    audit(
      stage,
      'model',
      status,
      latency,
      {
        kind: 'model_call',
        request,
        response: {
          ...(text ? { textPreview: text.slice(0, PREVIEW) } : {}),
          toolCalls: toolCalls.map(({ toolCallId, toolName }) => ({ toolCallId, toolName })),
        },
        ...(Object.keys(usageOut).length > 0
          ? {
              usage: {
                ...usageOut,
                ...(callCost ? { costAmount: callCost.amount, costCurrency: callCost.currency } : {}),
              },
            }
          : {}),
        ...(streamError && !cancelled ? { error: errorText(streamError) } : {}),
      },
      { finish_reason: cancelled ? 'cancelled' : finishReason, http_status: obs?.status ?? null },
    );
    return {
      status,
      text,
      toolCalls,
      approvalRequests,
      error: streamError ? errorText(streamError) : undefined,
    };
  };

  /** Runs one tool call; `sdkApprovalId` is set when the SDK asked for approval of this call. */
  const runTool = async (
    call: { toolCallId: string; toolName: string; input: JsonValue },
    sdkApprovalId: string | undefined,
  ) => {
    const started = performance.now();
    const def = toolsByName.get(call.toolName);
    let status: AuditStatus = 'ok';
    let output: JsonValue = null;
    let error: string | undefined;
    let approval: { decision: string; answeredBy?: string } | undefined;
    let denied = false;
    emit({
      rt: 'tool.start',
      toolCallId: call.toolCallId,
      name: call.toolName,
      kind: def?.kind ?? 'other',
      input: call.input,
    });
    try {
      if (!def) throw new ToolError(`no tool named ${call.toolName}`);
      const problems = def.check(call.input);
      if (problems.length > 0) throw new ToolError(`invalid input for ${def.name}: ${problems.join('; ')}`);
      if (sdkApprovalId !== undefined) {
        // The SDK decided that this call needs approval; the tool describes the card (computed now, so a
        // diff sees what earlier calls of the step changed).
        const described =
          typeof def.needsApproval === 'function'
            ? await def.needsApproval(call.input as never, { workspace: deps.workspace })
            : null;
        const ask = described ?? { title: `Run ${def.name}`, subject: { kind: 'tool_call' as const } };
        const approvalId = `apr-${deps.scope ?? ''}${call.toolCallId}`;
        emit({
          rt: 'approval',
          approvalId,
          toolCallId: call.toolCallId,
          title: ask.title,
          subject: ask.subject,
          input: call.input,
          ...(ask.diff !== undefined ? { diff: ask.diff } : {}),
        });
        const answer = await io.awaitApproval(approvalId);
        const allowed = answer.outcome === 'selected' && answer.optionId === 'allow';
        approval = {
          decision: answer.outcome === 'cancelled' ? 'cancelled' : allowed ? 'allow_once' : 'reject_once',
          ...(answer.answeredBy ? { answeredBy: answer.answeredBy } : {}),
        };
        if (io.signal.aborted) throw new CancelledError();
        answered.push({
          sdkApprovalId,
          toolCallId: call.toolCallId,
          approved: allowed,
          ...(allowed ? {} : { reason: DENIED_REASON }),
        });
        if (!allowed) {
          denied = true;
          throw new ToolError(DENIED_REASON);
        }
      }
      const ctx: ToolContext = {
        signal: io.signal,
        workspace: deps.workspace,
        toolCallId: call.toolCallId,
        progress: (message) => emit({ rt: 'tool.progress', toolCallId: call.toolCallId, message }),
        terminal: (c) => {
          const bytes = Buffer.byteLength(c.chunk);
          if (c.exit === undefined && bytes > 0 && turnOutput + bytes > turnOutputBound) {
            if (!outputWarned)
              emit({
                rt: 'warning',
                code: 'output_limit',
                message: `terminal output of this turn passed ${turnOutputBound} bytes (turnOutputBytes): the rest is not shown`,
                detail: { limit: turnOutputBound, spent: turnOutput },
              });
            outputWarned = true;
            return false;
          }
          turnOutput += bytes;
          emit({ rt: 'terminal', toolCallId: call.toolCallId, ...c });
          return true;
        },
        fileChanged: (c) => emit({ rt: 'file', toolCallId: call.toolCallId, ...c }),
        artifact: (a) => {
          if ('file' in a) {
            const { path, bytes, sha256 } = a.file;
            emit({ rt: 'artifact', toolCallId: call.toolCallId, ...a, file: { path, bytes, sha256 } });
            return;
          }
          const { content, ...rest } = a;
          emit({
            rt: 'artifact',
            toolCallId: call.toolCallId,
            ...rest,
            ...(typeof content === 'string'
              ? { content }
              : { content: Buffer.from(content).toString('base64'), encoding: 'base64' as const }),
          });
        },
        ask: async (q) => {
          const questionId = `q-${deps.scope ?? ''}${call.toolCallId}`;
          emit({
            rt: 'question',
            questionId,
            toolCallId: call.toolCallId,
            prompt: q.prompt,
            choices: q.choices ?? [],
            multiple: q.multiple ?? false,
            allowFreeText: q.allowFreeText ?? true,
          });
          const a = await io.awaitQuestion(questionId);
          return {
            outcome: a.outcome,
            ...(a.choiceIds ? { choiceIds: a.choiceIds } : {}),
            ...(a.text !== undefined ? { text: a.text } : {}),
          };
        },
      };
      output = jsonSafe(await def.execute(call.input as never, ctx));
      if (io.signal.aborted) throw new CancelledError();
      // Over its own bound or what the turn has left: the result goes to an artifact, a preview stays.
      const room = Math.min(bounds.toolResultBytes, Math.max(0, turnOutputBound - turnOutput));
      const bounded = await boundResult(
        output,
        room,
        bounds.outputDir,
        `${deps.scope ?? ''}${call.toolCallId}`,
      );
      turnOutput += bounded.bytes;
      if (bounded.spilled) {
        output = bounded.output;
        ctx.artifact({
          name: `result of ${call.toolName}`,
          contentType: 'application/json',
          file: bounded.spilled,
          description: `the tool's whole result (${bounded.spilled.bytes} bytes)`,
        });
        if (!resultWarned)
          outputLimit(
            'a tool result',
            room < bounds.toolResultBytes ? 'turnOutputBytes' : 'toolResultBytes',
            room,
          );
        resultWarned = true;
      }
    } catch (err) {
      if (err instanceof CancelledError || io.signal.aborted) {
        status = 'cancelled';
        error = 'cancelled';
      } else {
        status = 'error';
        error = (err as Error).message ?? String(err);
      }
    }
    const latency = performance.now() - started;
    emit({
      rt: 'tool.end',
      toolCallId: call.toolCallId,
      status: status === 'ok' ? 'completed' : status === 'error' ? 'failed' : 'cancelled',
      ...(status === 'ok' ? { output } : { error: error ?? 'failed' }),
      durationMs: Math.round(latency),
    });
    audit('tool-loop', 'tool', status, latency, {
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
      output: status === 'ok' ? output : denied ? deniedOutput(DENIED_REASON) : (error ?? 'failed'),
      isError: status !== 'ok',
    };
  };

  const stage = async (id: StageId, body: () => Promise<'ok' | 'cancelled' | { error: string }>) => {
    emit({ rt: 'stage', stage: id, phase: 'start' });
    await pluginHook((p) => p.onStageStart?.(id, pctx), 'onStageStart');
    const result = await body();
    const status = result === 'ok' ? 'ok' : result === 'cancelled' ? 'cancelled' : 'error';
    emit({ rt: 'stage', stage: id, phase: 'end', status });
    await pluginHook((p) => p.onStageEnd?.(id, pctx), 'onStageEnd');
    if (status === 'ok') await checkpoint(id);
    else {
      // The next prompt carries what this turn said, also after a restart: its prompt, the partial text and
      // the steps done (a call that never ran gets an error result, as providers want one per call).
      closeUnrun(conversation, turn.turnId, status);
      try {
        await checkpoint(id);
      } catch (err) {
        emit({
          rt: 'warning',
          code: 'checkpoint_failed',
          message: `the conversation of the ${status === 'error' ? 'failed' : 'cancelled'} turn was not saved: ${errorText(err)}`,
        });
      }
    }
    return result;
  };

  const settle = (r: 'ok' | 'cancelled' | { error: string }): TurnOutcome | null =>
    r === 'ok' ? null : r === 'cancelled' ? { outcome: 'cancelled' } : { outcome: 'failed', error: r.error };

  emit({ rt: 'model', model: settings.model, availableModels: [settings.model] });

  // ---- anchor-plan
  if (deps.plan) {
    const r = await stage('anchor-plan', async () => {
      const system = await systemFor(
        'anchor-plan',
        'Draft a short plan for the request as a numbered list, one step per line. Do not call tools and do not answer yet.',
      );
      const out = await modelCall('anchor-plan', 0, system, false);
      if (out.status === 'cancelled') return 'cancelled';
      if (out.status === 'error') return { error: `the planning call failed: ${out.error}` };
      plan = parsePlan(out.text);
      if (plan.length > 0) emit({ rt: 'plan', entries: plan });
      return 'ok';
    });
    const done = settle(r);
    if (done) return done;
  }

  // ---- tool-loop
  let answer = '';
  /** Set when a limit stopped the loop: the step number the synthesizing call gets. */
  let synthesisStep = 0;
  const budget = deps.budget ?? {};
  if (budget.cost !== undefined && !price)
    emit({
      rt: 'warning',
      code: 'cost_budget_unpriced',
      message: `turnCostBudget is not enforced: the price table has no price for ${settings.model}`,
      detail: { model: settings.model, limit: budget.cost },
    });
  const loop = await stage('tool-loop', async () => {
    const system = await systemFor('tool-loop', planSystem(deps.systemPrompt, plan));
    for (let step = 1; ; step++) {
      const hit: LimitHit | null =
        step > deps.maxSteps
          ? {
              code: 'step_limit',
              message: `the tool loop stopped after ${deps.maxSteps} model steps (maxSteps); the answer is synthesized from what was done`,
              detail: { limit: deps.maxSteps, spent: deps.maxSteps },
            }
          : budgetHit(budget, spend, price !== undefined);
      if (hit) {
        emit({ rt: 'warning', ...hit });
        synthesisStep = step;
        return 'ok';
      }
      const out = await modelCall('tool-loop', step, system, true);
      const parts: ConversationMessage['parts'] = [];
      if (out.text) parts.push({ type: 'text', text: out.text });
      for (const c of out.toolCalls) parts.push({ type: 'tool-call', ...c });
      if (parts.length > 0) conversation.push({ id: `${turn.turnId}:a${step}`, role: 'assistant', parts });
      if (out.status === 'cancelled') return 'cancelled';
      if (out.status === 'error') return { error: `the model call failed: ${out.error}` };
      if (out.toolCalls.length === 0) {
        answer = out.text;
        return 'ok';
      }
      const results: ConversationMessage['parts'] = [];
      for (const call of out.toolCalls) {
        const r = await runTool(call, out.approvalRequests.get(call.toolCallId));
        results.push({
          type: 'tool-result',
          toolCallId: call.toolCallId,
          toolName: call.toolName,
          output: r.output,
          isError: r.isError,
        });
        if (r.status === 'cancelled') {
          conversation.push({ id: `${turn.turnId}:t${step}`, role: 'tool', parts: results });
          return 'cancelled';
        }
      }
      conversation.push({ id: `${turn.turnId}:t${step}`, role: 'tool', parts: results });
      plan = advancePlan(plan);
      if (plan.length > 0) emit({ rt: 'plan', entries: plan });
    }
  });
  const loopDone = settle(loop);
  if (loopDone) return loopDone;

  // ---- synthesize: the loop's last text is the answer; a loop stopped by the limit gets one call without tools.
  const syn = await stage('synthesize', async () => {
    if (synthesisStep > 0) {
      const system = await systemFor(
        'synthesize',
        'Answer the user now from what was done so far. Do not call tools.',
      );
      const out = await modelCall('synthesize', synthesisStep, system, false);
      if (out.status === 'cancelled') return 'cancelled';
      if (out.status === 'error') return { error: `the synthesis call failed: ${out.error}` };
      answer = out.text;
      if (out.text)
        conversation.push({
          id: `${turn.turnId}:answer`,
          role: 'assistant',
          parts: [{ type: 'text', text: out.text }],
        });
    }
    if (plan.length > 0) {
      plan = plan.map((e) => ({ ...e, status: e.status === 'cancelled' ? e.status : 'completed' }));
      emit({ rt: 'plan', entries: plan });
    }
    return 'ok';
  });
  const synDone = settle(syn);
  if (synDone) return synDone;

  // ---- post-turn
  const post = await stage('post-turn', async () => {
    // With a price for the model, the turn's cost is there even when it is 0 (no usage reported). The
    // totals include what the turn's sub-agents spent.
    const cost = price ? (spend.cost ?? { amount: 0, currency: price.currency ?? 'USD' }) : undefined;
    emit({
      rt: 'usage',
      usage: { scope: 'turn', ...nonZero(spend.tokens), ...(cost ? { cost } : {}), model: settings.model },
    });
    for (const p of deps.plugins) {
      try {
        const markers = (await p.afterTurn?.({ ...pctx, answer })) ?? [];
        for (const marker of markers)
          emit({ rt: 'marker', marker: { ...marker, source: marker.source ?? p.name } });
      } catch (err) {
        emit({
          rt: 'warning',
          code: 'plugin_failed',
          message: `plugin ${p.name} failed in afterTurn: ${(err as Error).message}`,
        });
      }
    }
    return 'ok';
  });
  return settle(post) ?? { outcome: 'completed' };
}

class CancelledError extends Error {}

/** Tool calls of the turn's last step without a result get one saying they never ran. */
function closeUnrun(
  conversation: ConversationMessage[],
  turnId: string,
  status: 'error' | 'cancelled',
): void {
  const answered = new Set<string>();
  const calls: { toolCallId: string; toolName: string }[] = [];
  for (const m of conversation) {
    if (!m.id.startsWith(`${turnId}:`)) continue;
    for (const p of m.parts)
      if (p.type === 'tool-result') answered.add(p.toolCallId);
      else if (p.type === 'tool-call') calls.push({ toolCallId: p.toolCallId, toolName: p.toolName });
  }
  const missing: ConversationMessage['parts'] = calls
    .filter((c) => !answered.has(c.toolCallId))
    .map((c) => ({
      type: 'tool-result',
      ...c,
      output: `not run: the turn ${status === 'error' ? 'failed' : 'was cancelled'} first`,
      isError: true,
    }));
  if (missing.length === 0) return;
  const last = conversation.at(-1);
  if (last?.role === 'tool')
    conversation[conversation.length - 1] = { ...last, parts: [...last.parts, ...missing] };
  else conversation.push({ id: `${turnId}:unrun`, role: 'tool', parts: missing });
}

/**
 * SQLite answers SQLITE_BUSY at once (no busy wait) when a deferred transaction sharing the file with the
 * store's writer must upgrade to a write lock; retrying the whole put is the documented remedy.
 */
async function withBusyRetry<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      const busy =
        /database is locked|SQLITE_BUSY/i.test(String((err as Error).message)) ||
        (err as { code?: string }).code === 'SQLITE_BUSY';
      if (!busy || attempt >= 400) throw err;
      await new Promise((r) => setTimeout(r, Math.min(attempt, 20)));
    }
  }
}

/**
 * Whether the thread's newest checkpoint is not the one this engine session wrote last: another runtime
 * (the Python one, another process) ran a turn on the session since, and this turn must start from it.
 */
async function latestMoved(deps: TurnDeps): Promise<boolean> {
  if (!deps.saver) return false;
  const page = await deps.saver.list({ sessionId: deps.threadId, namespace: '', limit: 1 });
  return (page.items[0]?.checkpointId ?? undefined) !== deps.session.checkpointId;
}

async function loadLatest(deps: TurnDeps): Promise<void> {
  const mem = deps.session;
  mem.loaded = true;
  const latest = deps.saver ? await deps.saver.getLatest(deps.threadId) : undefined;
  if (!latest) return;
  const conv = latest.channels.conversation?.value as { value?: ConversationMessage[] } | undefined;
  const plan = latest.channels.plan?.value as { value?: PlanEntry[] } | undefined;
  // Checkpoints are frozen when cached: copy before the turn appends to them.
  mem.conversation = structuredClone(conv?.value ?? []);
  mem.plan = structuredClone(plan?.value ?? []);
  mem.checkpointId = latest.id;
  mem.version = Math.max(latest.channels.conversation?.version ?? 0, latest.channels.plan?.version ?? 0);
}

function partText(m: ConversationMessage): string {
  return m.parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
}

function errorText(err: unknown): string {
  // The SDK wraps what fails while it reads a stream as "Failed to process successful response"; the
  // engine's own stall and truncation errors say what happened, so they are the message.
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++)
    if (e instanceof ModelStreamTimeout || e instanceof ModelStreamTruncated) return e.message;
  if (err instanceof Error) return err.message;
  if (typeof err === 'object' && err !== null && 'message' in err)
    return String((err as { message: unknown }).message);
  return String(err);
}

const DROP = new Set(['request', 'response', 'providerMetadata', 'warnings', 'rawValue', 'providerOptions']);

/** An AI SDK stream part as JSON: no request/response bodies or headers, errors as messages. */
export function safePart(part: Record<string, unknown>): JsonObject {
  if (part.type === 'text-delta' || part.type === 'reasoning-delta')
    return { type: part.type, id: String(part.id), text: String(part.text) };
  if (part.type === 'error') return { type: 'error', message: errorText(part.error) };
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(part)) {
    if (DROP.has(k) || v === undefined) continue;
    out[k] = jsonSafe(v);
  }
  if (part.type === 'finish-step') out.usage = jsonSafe(part.usage);
  return out;
}

function numbers(usage: JsonObject) {
  const out: {
    inputTokens?: number;
    outputTokens?: number;
    reasoningTokens?: number;
    cachedInputTokens?: number;
  } = {};
  const n = (v: JsonValue | undefined) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
  const set = (k: keyof typeof out, v: number | undefined) => {
    if (v !== undefined) out[k] = v;
  };
  set('inputTokens', n(usage.inputTokens));
  set('outputTokens', n(usage.outputTokens));
  set('reasoningTokens', n(usage.reasoningTokens));
  set('cachedInputTokens', n(usage.cachedInputTokens));
  return out;
}

function nonZero(t: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(t).filter(([, v]) => v > 0));
}

/** "1. Do x" / "- Do y" lines → plan entries; the first one in progress. */
export function parsePlan(text: string): PlanEntry[] {
  const lines = text
    .split('\n')
    .map((l) => l.replace(/^\s*(?:\d+[.)]|[-*])\s*/, '').trim())
    .filter((l) => l.length > 0)
    .slice(0, 20);
  return lines.map((content, i) => ({
    id: `p${i + 1}`,
    content,
    status: i === 0 ? 'in_progress' : 'pending',
  }));
}

/** After a tool step: the entry in progress is done and the next one starts. */
export function advancePlan(plan: PlanEntry[]): PlanEntry[] {
  const current = plan.findIndex((e) => e.status === 'in_progress');
  if (current < 0 || current === plan.length - 1) return plan;
  return plan.map((e, i) =>
    i === current ? { ...e, status: 'completed' } : i === current + 1 ? { ...e, status: 'in_progress' } : e,
  );
}

function planSystem(base: string, plan: PlanEntry[]): string {
  if (plan.length === 0) return base;
  return `${base}\n\nThe plan for this turn:\n${plan.map((e, i) => `${i + 1}. ${e.content}`).join('\n')}`;
}
