import { type Event, EventType, type Interrupt } from '@ag-ui/core';
import {
  assertNeverEvent,
  type CanonicalEvent,
  type JsonValue,
  type MessageRole,
  type PlanEntry,
  type StopReason,
} from '@agentlane/contract';
import { MessageList } from './message-list.js';

/** The run's state as AG-UI sees it: the plan and the usage by scope (STATE_SNAPSHOT, then STATE_DELTA). */
export interface AgUiState {
  plan: { planId?: string; entries: PlanEntry[] } | null;
  usage: Record<string, JsonValue>;
}

interface Open {
  text: Set<string>;
  reasoning: Set<string>;
  tools: Set<string>;
}

/**
 * Canonical events of one run → AG-UI events, keeping the thread's messages (what MESSAGES_SNAPSHOT sends)
 * and state as an AG-UI client builds them. Text, reasoning and tool calls may be open at once (AG-UI allows
 * it); everything open is closed before the run's terminal event. Approvals and questions become interrupts.
 * Kinds AG-UI has no event for arrive as CUSTOM `agentlane.<kind>` with the canonical payload.
 */
export class AgUiTranslator {
  readonly messages = new MessageList();
  readonly state: AgUiState = { plan: null, usage: {} };
  readonly #seen = new Set<string>();
  readonly #roles = new Map<string, MessageRole>();
  readonly #textSent = new Map<string, string>();
  readonly #reasoningSent = new Map<string, string>();
  readonly #open: Open = { text: new Set(), reasoning: new Set(), tools: new Set() };
  /** Tool calls whose arguments are complete (TOOL_CALL_END sent), and those with a result. */
  readonly #argsDone = new Set<string>();
  readonly #argsText = new Map<string, string>();
  readonly #toolNames = new Map<string, string>();
  readonly #pending = new Map<string, Interrupt>();
  #step = 0;
  #stepOpen = false;
  #toolSettledInStep = false;
  #stopReason: StopReason | undefined;
  #ts = 0;

  get pendingInterrupts(): Interrupt[] {
    return [...this.#pending.values()];
  }

  get stopReason(): StopReason | undefined {
    return this.#stopReason;
  }

  /** The user's prompt of a run, as the message AG-UI shows (the run's own rows never carry it as text). */
  addUserMessage(id: string, content: string): void {
    this.messages.user(id, content);
  }

  /**
   * A new stream starts with a snapshot of what is translated so far: nothing is open in it, so a part that
   * goes on afterwards is started again (AG-UI appends to a message or tool call whose id it already holds).
   */
  forgetOpen(): void {
    this.#open.text.clear();
    this.#open.reasoning.clear();
    this.#open.tools.clear();
    this.#stepOpen = false;
    this.#toolSettledInStep = false;
  }

  dropPending(): void {
    this.#pending.clear();
  }

  push(event: CanonicalEvent): Event[] {
    if (this.#seen.has(event.eventId)) return [];
    this.#seen.add(event.eventId);
    const parsed = Date.parse(event.ts);
    this.#ts = Number.isFinite(parsed) ? parsed : this.#ts;
    const out: Event[] = [];
    this.#translate(event, out);
    for (const e of out) this.messages.apply(e);
    return out;
  }

  /** Ends what is open: text, reasoning, tool calls' arguments, the step. */
  close(): Event[] {
    const out: Event[] = [];
    this.#closeStep(out);
    for (const id of [...this.#open.tools]) this.#endArgs(id, out);
    for (const e of out) this.messages.apply(e);
    return out;
  }

  #stamp<E extends Event>(event: E): E {
    return { ...event, timestamp: this.#ts };
  }

  #translate(event: CanonicalEvent, out: Event[]): void {
    const custom = () =>
      out.push(
        this.#stamp({ type: EventType.CUSTOM, name: `agentlane.${event.kind}`, value: event.payload }),
      );
    switch (event.kind) {
      case 'message.started':
        this.#roles.set(event.payload.messageId, event.payload.role);
        return;
      case 'message.delta': {
        const { messageId, delta } = event.payload;
        if (this.#roles.get(messageId) === 'user' || delta === '') return;
        this.#text(messageId, delta, out);
        return;
      }
      case 'message.completed': {
        const { messageId, role, text } = event.payload;
        if (role !== 'assistant') return;
        const sent = this.#textSent.get(messageId) ?? '';
        if (text.length > sent.length && text.startsWith(sent))
          this.#text(messageId, text.slice(sent.length), out);
        if (this.#open.text.delete(messageId))
          out.push(this.#stamp({ type: EventType.TEXT_MESSAGE_END, messageId }));
        return;
      }
      case 'reasoning.delta':
        if (event.payload.delta !== '') this.#reasoning(event.payload.reasoningId, event.payload.delta, out);
        return;
      case 'reasoning.completed': {
        const { reasoningId, text } = event.payload;
        const sent = this.#reasoningSent.get(reasoningId) ?? '';
        if (text.length > sent.length && text.startsWith(sent))
          this.#reasoning(reasoningId, text.slice(sent.length), out);
        this.#endReasoning(reasoningId, out);
        return;
      }
      case 'tool.started': {
        const p = event.payload;
        this.#startTool(p.toolCallId, p.name, out);
        this.#toolArgs(p.toolCallId, p.input, p.status === 'running', out);
        return;
      }
      case 'tool.progress': {
        const p = event.payload;
        this.#startTool(p.toolCallId, 'tool', out);
        if (p.inputDelta !== undefined) this.#toolArgsDelta(p.toolCallId, p.inputDelta, out);
        if (p.input !== undefined || p.status === 'running')
          this.#toolArgs(p.toolCallId, p.input, p.status === 'running', out);
        if (p.partialOutput !== undefined || p.message !== undefined) custom();
        return;
      }
      case 'tool.completed': {
        const p = event.payload;
        this.#startTool(p.toolCallId, 'tool', out);
        this.#toolArgs(p.toolCallId, undefined, true, out);
        this.#toolSettledInStep = true;
        const content =
          p.status === 'completed'
            ? toText(p.output ?? (p.outputArtifact as unknown as JsonValue | undefined) ?? '')
            : `${p.status}${p.error ? `: ${p.error}` : ''}`;
        out.push(
          this.#stamp({
            type: EventType.TOOL_CALL_RESULT,
            messageId: `result-${p.toolCallId}`,
            toolCallId: p.toolCallId,
            content,
            role: 'tool',
          }),
        );
        return;
      }
      case 'approval.requested': {
        const p = event.payload;
        if (p.toolCallId) {
          this.#startTool(p.toolCallId, p.subject.kind, out);
          this.#toolArgs(p.toolCallId, p.input, true, out);
        }
        this.#pending.set(p.approvalId, {
          id: p.approvalId,
          reason: 'tool_approval',
          message: p.title,
          ...(p.toolCallId ? { toolCallId: p.toolCallId } : {}),
          responseSchema: {
            type: 'object',
            properties: {
              optionId: { type: 'string', enum: p.options.map((o) => o.optionId) },
              approved: { type: 'boolean' },
            },
          },
          metadata: { agentlane: { kind: 'approval', runId: event.runId, ...p } },
        });
        custom();
        return;
      }
      case 'question.requested': {
        const p = event.payload;
        this.#pending.set(p.questionId, {
          id: p.questionId,
          reason: 'question',
          message: p.prompt,
          ...(p.toolCallId ? { toolCallId: p.toolCallId } : {}),
          responseSchema: {
            type: 'object',
            properties: {
              choiceIds: { type: 'array', items: { type: 'string', enum: p.choices.map((c) => c.id) } },
              text: { type: 'string' },
            },
          },
          metadata: { agentlane: { kind: 'question', runId: event.runId, ...p } },
        });
        custom();
        return;
      }
      case 'approval.resolved':
        this.#pending.delete(event.payload.approvalId);
        custom();
        return;
      case 'question.resolved':
        this.#pending.delete(event.payload.questionId);
        custom();
        return;
      case 'plan.updated': {
        const plan = {
          ...(event.payload.planId ? { planId: event.payload.planId } : {}),
          entries: event.payload.entries,
        };
        this.state.plan = plan;
        out.push(
          this.#stamp({ type: EventType.STATE_DELTA, delta: [{ op: 'add', path: '/plan', value: plan }] }),
        );
        return;
      }
      case 'usage.updated': {
        const { scope } = event.payload;
        this.state.usage[scope] = event.payload as unknown as JsonValue;
        out.push(
          this.#stamp({
            type: EventType.STATE_DELTA,
            delta: [{ op: 'add', path: `/usage/${scope}`, value: event.payload }],
          }),
        );
        if (scope === 'step') this.#closeStep(out);
        return;
      }
      case 'turn.completed':
        this.#stopReason = event.payload.stopReason;
        return;
      case 'session.started':
      case 'session.metadata':
      case 'turn.started':
        return;
      case 'file.changed':
      case 'artifact.created':
      case 'artifact.delivered':
      case 'terminal.output':
      case 'child.started':
      case 'child.updated':
      case 'child.completed':
      case 'commands.updated':
      case 'mode.updated':
      case 'context.marker':
      case 'harness.warning':
      case 'harness.error':
        custom();
        return;
      default:
        assertNeverEvent(event);
    }
  }

  /** Before content: open a step, or the next one when tool results came in this one. */
  #content(out: Event[]): void {
    if (this.#stepOpen && this.#toolSettledInStep) this.#closeStep(out);
    if (this.#stepOpen) return;
    this.#step += 1;
    this.#stepOpen = true;
    this.#toolSettledInStep = false;
    out.push(this.#stamp({ type: EventType.STEP_STARTED, stepName: `step-${this.#step}` }));
  }

  #closeStep(out: Event[]): void {
    for (const id of this.#open.text)
      out.push(this.#stamp({ type: EventType.TEXT_MESSAGE_END, messageId: id }));
    this.#open.text.clear();
    for (const id of [...this.#open.reasoning]) this.#endReasoning(id, out);
    if (this.#stepOpen)
      out.push(this.#stamp({ type: EventType.STEP_FINISHED, stepName: `step-${this.#step}` }));
    this.#stepOpen = false;
    this.#toolSettledInStep = false;
  }

  #text(messageId: string, delta: string, out: Event[]): void {
    this.#content(out);
    if (!this.#open.text.has(messageId)) {
      this.#open.text.add(messageId);
      out.push(this.#stamp({ type: EventType.TEXT_MESSAGE_START, messageId, role: 'assistant' }));
    }
    out.push(this.#stamp({ type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta }));
    this.#textSent.set(messageId, (this.#textSent.get(messageId) ?? '') + delta);
  }

  #reasoning(id: string, delta: string, out: Event[]): void {
    this.#content(out);
    if (!this.#open.reasoning.has(id)) {
      this.#open.reasoning.add(id);
      out.push(this.#stamp({ type: EventType.REASONING_START, messageId: id }));
      out.push(this.#stamp({ type: EventType.REASONING_MESSAGE_START, messageId: id, role: 'reasoning' }));
    }
    out.push(this.#stamp({ type: EventType.REASONING_MESSAGE_CONTENT, messageId: id, delta }));
    this.#reasoningSent.set(id, (this.#reasoningSent.get(id) ?? '') + delta);
  }

  #endReasoning(id: string, out: Event[]): void {
    if (!this.#open.reasoning.delete(id)) return;
    out.push(this.#stamp({ type: EventType.REASONING_MESSAGE_END, messageId: id }));
    out.push(this.#stamp({ type: EventType.REASONING_END, messageId: id }));
  }

  /** TOOL_CALL_START once per call and stream (again after a snapshot while its arguments were open). */
  #startTool(toolCallId: string, name: string, out: Event[]): void {
    if (this.#argsDone.has(toolCallId) || this.#open.tools.has(toolCallId)) return;
    this.#content(out);
    const known = this.#toolNames.get(toolCallId);
    this.#toolNames.set(toolCallId, known ?? name);
    this.#open.tools.add(toolCallId);
    out.push(this.#stamp({ type: EventType.TOOL_CALL_START, toolCallId, toolCallName: known ?? name }));
  }

  /** Streamed input in the append form: the piece is the args delta, no comparison with the text so far. */
  #toolArgsDelta(toolCallId: string, delta: string, out: Event[]): void {
    if (this.#argsDone.has(toolCallId) || !this.#open.tools.has(toolCallId) || delta === '') return;
    out.push(this.#stamp({ type: EventType.TOOL_CALL_ARGS, toolCallId, delta }));
    this.#argsText.set(toolCallId, (this.#argsText.get(toolCallId) ?? '') + delta);
  }

  /**
   * Arguments: a string input of a pending call is its JSON text so far (cumulative), sent as the suffix it
   * adds; an object input, or a call that runs, completes them (the whole JSON when none was streamed).
   */
  #toolArgs(toolCallId: string, input: JsonValue | undefined, ready: boolean, out: Event[]): void {
    if (this.#argsDone.has(toolCallId) || !this.#open.tools.has(toolCallId)) return;
    const sent = this.#argsText.get(toolCallId) ?? '';
    if (typeof input === 'string') {
      if (input.startsWith(sent) && input.length > sent.length) {
        out.push(
          this.#stamp({ type: EventType.TOOL_CALL_ARGS, toolCallId, delta: input.slice(sent.length) }),
        );
        this.#argsText.set(toolCallId, input);
      }
      if (!ready) return;
    } else {
      const informative =
        input !== undefined &&
        !(
          typeof input === 'object' &&
          input !== null &&
          !Array.isArray(input) &&
          Object.keys(input).length === 0
        );
      if (!informative && !ready) return;
      if (informative && sent === '') {
        const whole = JSON.stringify(input);
        out.push(this.#stamp({ type: EventType.TOOL_CALL_ARGS, toolCallId, delta: whole }));
        this.#argsText.set(toolCallId, whole);
      }
    }
    this.#endArgs(toolCallId, out);
  }

  #endArgs(toolCallId: string, out: Event[]): void {
    if (this.#argsDone.has(toolCallId)) return;
    this.#argsDone.add(toolCallId);
    this.#open.tools.delete(toolCallId);
    out.push(this.#stamp({ type: EventType.TOOL_CALL_END, toolCallId }));
  }
}

function toText(value: JsonValue): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
