import {
  assertNeverEvent,
  type CanonicalEvent,
  type JsonValue,
  type MessageRole,
  type StopReason,
} from '@agentlane/contract';
import type { FinishReason, UIMessageChunk } from 'ai';

/** What the stream of one run says about itself, in the message metadata (`start` and `finish`). */
export interface AgentlaneMessageMetadata {
  threadId: string;
  runId: string;
  /** The last thread row this message holds: a continuation or a resume starts after it. */
  deliverySeq?: number;
  stopReason?: StopReason;
}

export type UiChunk = UIMessageChunk<{ agentlane: AgentlaneMessageMetadata }>;

type ToolState = 'streaming' | 'available' | 'approval' | 'approved' | 'done';

interface ToolEntry {
  name: string;
  state: ToolState;
  /** The input text streamed so far as tool-input-delta (engines send it cumulative). */
  inputText: string;
  input: JsonValue | undefined;
}

interface OpenPart {
  /** The AI SDK part id; a part reopened after a step boundary gets a fresh one. */
  id: string;
  messageId: string | undefined;
}

/** Terminal output kept per terminal for its data part (the part is replaced, so it carries the whole tail). */
const TERMINAL_TAIL_CHARS = 64 * 1024;

const FINISH_REASONS: Record<StopReason, FinishReason> = {
  end_turn: 'stop',
  max_tokens: 'length',
  max_turn_requests: 'length',
  refusal: 'content-filter',
  cancelled: 'other',
  error: 'error',
  other: 'other',
};

/**
 * Canonical events of one run → AI SDK UI message chunks of one assistant message. The AI SDK stream is
 * append-only and has no ids, so a revision of an event already translated is skipped, and a text part whose
 * final text disagrees with the deltas already sent keeps what was sent (only a missing suffix is added).
 * Steps: a step opens before the first content chunk and closes at a `usage.updated` of scope `step`, or
 * when new content follows a settled tool call (engines that report no step usage).
 */
export class UiMessageTranslator {
  readonly #meta: AgentlaneMessageMetadata;
  readonly #seen = new Set<string>();
  readonly #roles = new Map<string, MessageRole>();
  readonly #text = new Map<string, OpenPart>();
  readonly #reasoning = new Map<string, OpenPart>();
  /** Text sent per message / reasoning id, to add only what a `*.completed` has beyond it. */
  readonly #textSent = new Map<string, string>();
  readonly #reasoningSent = new Map<string, string>();
  readonly #tools = new Map<string, ToolEntry>();
  readonly #approvalTool = new Map<string, string>();
  readonly #pending = new Set<string>();
  readonly #terminals = new Map<string, Record<string, JsonValue>>();
  readonly #children = new Map<string, Record<string, JsonValue>>();
  readonly #questions = new Map<string, Record<string, JsonValue>>();
  #stepOpen = false;
  #toolSettledInStep = false;
  #reopened = 0;
  #stopReason: StopReason | undefined;
  #finished = false;

  constructor(meta: { threadId: string; runId: string }) {
    this.#meta = { threadId: meta.threadId, runId: meta.runId };
  }

  /** The AI SDK message id of the run's assistant message: stable, so a resume continues the same message. */
  static messageId(runId: string): string {
    return `msg-${runId}`;
  }

  get finished(): boolean {
    return this.#finished;
  }

  /** Approvals asked and not answered yet: the stream pauses on them so useChat can answer. */
  get pendingApprovals(): number {
    return this.#pending.size;
  }

  get deliverySeq(): number | undefined {
    return this.#meta.deliverySeq;
  }

  /** The first chunk of every stream of this run (a POST, a continuation, a resume). */
  start(): UiChunk[] {
    return [
      {
        type: 'start',
        messageId: UiMessageTranslator.messageId(this.#meta.runId),
        messageMetadata: { agentlane: { threadId: this.#meta.threadId, runId: this.#meta.runId } },
      },
    ];
  }

  /**
   * The client of a new stream holds no open text or reasoning part and no open step (the AI SDK resets them
   * per stream): after replaying what it already holds, the next delta opens a new part.
   */
  forgetOpenParts(): void {
    this.#text.clear();
    this.#reasoning.clear();
    this.#stepOpen = false;
    this.#toolSettledInStep = false;
  }

  push(row: { deliverySeq: number; event: CanonicalEvent }): UiChunk[] {
    this.#meta.deliverySeq = Math.max(this.#meta.deliverySeq ?? 0, row.deliverySeq);
    const { event } = row;
    if (this.#finished || this.#seen.has(event.eventId)) return [];
    this.#seen.add(event.eventId);
    const out: UiChunk[] = [];
    this.#translate(event, out);
    return out;
  }

  /** Ends the stream at a pending approval: the client answers it, then posts again to continue. */
  pause(): UiChunk[] {
    const out: UiChunk[] = [];
    this.#closeStep(out);
    out.push({ type: 'finish', finishReason: 'tool-calls', messageMetadata: this.#metadata() });
    return out;
  }

  /** Ends the message when the run settled (with or without a `turn.completed`). */
  finish(failure?: string): UiChunk[] {
    if (this.#finished) return [];
    this.#finished = true;
    const out: UiChunk[] = [];
    if (failure && this.#stopReason === undefined) {
      this.#stopReason = 'error';
      out.push({ type: 'error', errorText: failure });
    }
    this.#closeStep(out);
    const finishReason = FINISH_REASONS[this.#stopReason ?? 'end_turn'];
    out.push({ type: 'finish', finishReason, messageMetadata: this.#metadata() });
    return out;
  }

  #metadata(): { agentlane: AgentlaneMessageMetadata } {
    return {
      agentlane: { ...this.#meta, ...(this.#stopReason ? { stopReason: this.#stopReason } : {}) },
    };
  }

  #translate(event: CanonicalEvent, out: UiChunk[]): void {
    switch (event.kind) {
      case 'message.started':
        this.#roles.set(event.payload.messageId, event.payload.role);
        return;
      case 'message.delta': {
        const { messageId, partId, delta } = event.payload;
        if (this.#roles.get(messageId) === 'user' || delta === '') return;
        this.#appendText(messageId, `${messageId}\u0000${partId}`, partId, delta, out);
        return;
      }
      case 'message.completed': {
        const { messageId, role, text } = event.payload;
        if (role !== 'assistant') return;
        const sent = this.#textSent.get(messageId) ?? '';
        if (text.length > sent.length && text.startsWith(sent)) {
          const open = [...this.#text.entries()].filter(([, p]) => p.messageId === messageId).pop();
          const key = open?.[0] ?? `${messageId}\u0000final`;
          this.#appendText(messageId, key, `${messageId}-text`, text.slice(sent.length), out);
        }
        for (const [key, part] of [...this.#text]) {
          if (part.messageId !== messageId) continue;
          out.push({ type: 'text-end', id: part.id });
          this.#text.delete(key);
        }
        return;
      }
      case 'reasoning.delta': {
        const { reasoningId, delta } = event.payload;
        if (delta !== '') this.#appendReasoning(reasoningId, delta, out);
        return;
      }
      case 'reasoning.completed': {
        const { reasoningId, text } = event.payload;
        const sent = this.#reasoningSent.get(reasoningId) ?? '';
        if (text.length > sent.length && text.startsWith(sent))
          this.#appendReasoning(reasoningId, text.slice(sent.length), out);
        const part = this.#reasoning.get(reasoningId);
        if (part) {
          out.push({ type: 'reasoning-end', id: part.id });
          this.#reasoning.delete(reasoningId);
        }
        return;
      }
      case 'tool.started': {
        const p = event.payload;
        if (this.#tools.has(p.toolCallId)) return;
        this.#startTool(p.toolCallId, p.name, p.title, out);
        this.#toolInput(p.toolCallId, p.input, p.status === 'running', out);
        return;
      }
      case 'tool.progress': {
        const p = event.payload;
        if (!this.#tools.has(p.toolCallId)) this.#startTool(p.toolCallId, 'tool', p.title, out);
        if (p.inputDelta !== undefined) this.#toolInputDelta(p.toolCallId, p.inputDelta, out);
        if (p.input !== undefined || p.status === 'running')
          this.#toolInput(p.toolCallId, p.input, p.status === 'running', out);
        const tool = this.#tools.get(p.toolCallId);
        if (p.partialOutput !== undefined && (tool?.state === 'available' || tool?.state === 'approved')) {
          out.push({
            type: 'tool-output-available',
            toolCallId: p.toolCallId,
            output: p.partialOutput,
            dynamic: true,
            preliminary: true,
          });
        }
        return;
      }
      case 'tool.completed': {
        const p = event.payload;
        if (!this.#tools.has(p.toolCallId)) this.#startTool(p.toolCallId, 'tool', undefined, out);
        const tool = this.#tools.get(p.toolCallId) as ToolEntry;
        if (tool.state === 'done') return;
        if (tool.state === 'streaming') this.#toolInput(p.toolCallId, undefined, true, out);
        tool.state = 'done';
        this.#toolSettledInStep = true;
        if (p.status === 'completed') {
          const output = p.output ?? (p.outputArtifact as unknown as JsonValue | undefined) ?? null;
          out.push({ type: 'tool-output-available', toolCallId: p.toolCallId, output, dynamic: true });
        } else {
          out.push({
            type: 'tool-output-error',
            toolCallId: p.toolCallId,
            errorText: p.error ?? `tool call ${p.status}`,
            dynamic: true,
          });
        }
        return;
      }
      case 'approval.requested': {
        const p = event.payload;
        // useChat answers approvals on tool parts: an approval of no known tool call gets a part of its own.
        const toolCallId = p.toolCallId ?? `approval-${p.approvalId}`;
        if (!this.#tools.has(toolCallId)) this.#startTool(toolCallId, p.subject.kind, p.title, out);
        const tool = this.#tools.get(toolCallId) as ToolEntry;
        if (tool.state === 'done') return;
        if (tool.state === 'streaming')
          this.#toolInput(toolCallId, p.input ?? (p.subject as unknown as JsonValue), true, out);
        tool.state = 'approval';
        this.#approvalTool.set(p.approvalId, toolCallId);
        this.#pending.add(p.approvalId);
        out.push({ type: 'tool-approval-request', approvalId: p.approvalId, toolCallId });
        return;
      }
      case 'approval.resolved': {
        const p = event.payload;
        this.#pending.delete(p.approvalId);
        const toolCallId = this.#approvalTool.get(p.approvalId);
        const tool = toolCallId ? this.#tools.get(toolCallId) : undefined;
        if (!toolCallId || !tool || tool.state === 'done') return;
        const allowed = p.outcome === 'selected' && p.decision?.startsWith('allow') === true;
        if (allowed) {
          tool.state = 'approved';
          return;
        }
        tool.state = 'done';
        this.#toolSettledInStep = true;
        out.push({ type: 'tool-output-denied', toolCallId });
        return;
      }
      case 'plan.updated':
        out.push({ type: 'data-plan', id: event.payload.planId ?? 'plan', data: event.payload });
        return;
      case 'file.changed':
        out.push({ type: 'data-file-change', id: event.eventId, data: event.payload });
        return;
      case 'terminal.output': {
        const p = event.payload;
        const prev = this.#terminals.get(p.terminalId) ?? { terminalId: p.terminalId, output: '' };
        const output = `${prev.output as string}${p.chunk}`.slice(-TERMINAL_TAIL_CHARS);
        const next: Record<string, JsonValue> = {
          ...prev,
          ...(p.toolCallId ? { toolCallId: p.toolCallId } : {}),
          ...(p.command ? { command: p.command } : {}),
          ...(p.exit ? { exit: p.exit } : {}),
          output,
        };
        this.#terminals.set(p.terminalId, next);
        out.push({ type: 'data-terminal', id: p.terminalId, data: next });
        return;
      }
      case 'usage.updated':
        out.push({ type: 'data-usage', id: `usage-${event.payload.scope}`, data: event.payload });
        if (event.payload.scope === 'step') this.#closeStep(out);
        return;
      case 'child.started':
      case 'child.updated':
      case 'child.completed': {
        const id = event.payload.childSessionId;
        const status = event.kind === 'child.completed' ? event.payload.status : 'running';
        const merged = { ...this.#children.get(id), ...event.payload, status } as Record<string, JsonValue>;
        this.#children.set(id, merged);
        out.push({ type: 'data-child', id, data: merged });
        return;
      }
      case 'question.requested':
      case 'question.resolved': {
        const id = event.payload.questionId;
        const status = event.kind === 'question.resolved' ? event.payload.outcome : 'pending';
        const merged = { ...this.#questions.get(id), ...event.payload, status } as Record<string, JsonValue>;
        this.#questions.set(id, merged);
        out.push({ type: 'data-question', id, data: merged });
        return;
      }
      case 'artifact.created':
        out.push({ type: 'data-artifact', id: event.payload.artifact.id, data: event.payload });
        return;
      case 'artifact.delivered':
        out.push({ type: 'data-artifact', id: event.payload.artifact.id, data: event.payload });
        out.push({
          type: 'file',
          url: `/api/harness/artifacts/${encodeURIComponent(event.payload.artifact.id)}`,
          mediaType: event.payload.artifact.contentType,
        });
        return;
      case 'harness.warning':
        out.push({ type: 'data-warning', id: event.eventId, data: event.payload });
        return;
      case 'harness.error':
        if (event.payload.fatal) out.push({ type: 'error', errorText: event.payload.message });
        else out.push({ type: 'data-warning', id: event.eventId, data: event.payload });
        return;
      case 'turn.completed':
        this.#stopReason = event.payload.stopReason;
        return;
      // Session-level state, not part of an assistant message: agentlane's own stream carries it.
      case 'session.started':
      case 'session.metadata':
      case 'turn.started':
      case 'commands.updated':
      case 'mode.updated':
      case 'context.marker':
        return;
      default:
        assertNeverEvent(event);
    }
  }

  /** Before a content chunk: open a step, or start the next one when tool results came in this one. */
  #content(out: UiChunk[]): void {
    if (this.#stepOpen && this.#toolSettledInStep) this.#closeStep(out);
    if (!this.#stepOpen) {
      out.push({ type: 'start-step' });
      this.#stepOpen = true;
      this.#toolSettledInStep = false;
    }
  }

  /** finish-step drops the client's open text and reasoning parts, so they are ended first. */
  #closeStep(out: UiChunk[]): void {
    for (const part of this.#text.values()) out.push({ type: 'text-end', id: part.id });
    for (const part of this.#reasoning.values()) out.push({ type: 'reasoning-end', id: part.id });
    this.#text.clear();
    this.#reasoning.clear();
    if (this.#stepOpen) out.push({ type: 'finish-step' });
    this.#stepOpen = false;
    this.#toolSettledInStep = false;
  }

  #freshId(base: string, taken: boolean): string {
    return taken ? `${base}~${++this.#reopened}` : base;
  }

  #appendText(messageId: string, key: string, baseId: string, delta: string, out: UiChunk[]): void {
    this.#content(out);
    let part = this.#text.get(key);
    if (!part) {
      part = { id: this.#freshId(baseId, this.#textSent.has(messageId)), messageId };
      this.#text.set(key, part);
      out.push({ type: 'text-start', id: part.id });
    }
    out.push({ type: 'text-delta', id: part.id, delta });
    this.#textSent.set(messageId, (this.#textSent.get(messageId) ?? '') + delta);
  }

  #appendReasoning(reasoningId: string, delta: string, out: UiChunk[]): void {
    this.#content(out);
    let part = this.#reasoning.get(reasoningId);
    if (!part) {
      part = { id: this.#freshId(reasoningId, this.#reasoningSent.has(reasoningId)), messageId: undefined };
      this.#reasoning.set(reasoningId, part);
      out.push({ type: 'reasoning-start', id: part.id });
    }
    out.push({ type: 'reasoning-delta', id: part.id, delta });
    this.#reasoningSent.set(reasoningId, (this.#reasoningSent.get(reasoningId) ?? '') + delta);
  }

  #startTool(toolCallId: string, toolName: string, title: string | undefined, out: UiChunk[]): void {
    this.#content(out);
    this.#tools.set(toolCallId, { name: toolName, state: 'streaming', inputText: '', input: undefined });
    out.push({
      type: 'tool-input-start',
      toolCallId,
      toolName,
      dynamic: true,
      ...(title !== undefined ? { title } : {}),
    });
  }

  /** Streamed input in the append form: the piece goes on as it came, no comparison with the text so far. */
  #toolInputDelta(toolCallId: string, delta: string, out: UiChunk[]): void {
    const tool = this.#tools.get(toolCallId);
    if (tool?.state !== 'streaming' || delta === '') return;
    out.push({ type: 'tool-input-delta', toolCallId, inputTextDelta: delta });
    tool.inputText += delta;
  }

  /**
   * A string input while the call is pending is its JSON text so far (cumulative): sent as the suffix it adds.
   * Any other input, or a call that is running, makes the input available.
   */
  #toolInput(toolCallId: string, input: JsonValue | undefined, ready: boolean, out: UiChunk[]): void {
    const tool = this.#tools.get(toolCallId);
    if (!tool || (tool.state !== 'streaming' && tool.state !== 'available')) return;
    if (typeof input === 'string' && tool.state === 'streaming') {
      if (input.startsWith(tool.inputText) && input.length > tool.inputText.length) {
        out.push({
          type: 'tool-input-delta',
          toolCallId,
          inputTextDelta: input.slice(tool.inputText.length),
        });
        tool.inputText = input;
      }
      if (!ready) return;
      input = parseJson(input);
    }
    const informative = input !== undefined && !isEmptyObject(input);
    const changed = informative && JSON.stringify(input) !== JSON.stringify(tool.input);
    if (informative) tool.input = input;
    if (tool.state === 'available' ? !changed : !informative && !ready) return;
    tool.state = 'available';
    out.push({
      type: 'tool-input-available',
      toolCallId,
      toolName: tool.name,
      input: tool.input ?? parseJson(tool.inputText) ?? {},
      dynamic: true,
    });
  }
}

function isEmptyObject(value: JsonValue): boolean {
  return (
    typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0
  );
}

/** A tool input text that is whole JSON, else undefined (a partial text stays text). */
function parseJson(text: string): JsonValue | undefined {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
}
