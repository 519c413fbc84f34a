import { type Event, EventType, type Interrupt } from '@ag-ui/core';
import {
  assertNeverEvent,
  type CanonicalEvent,
  type CanonicalEventOf,
  type JsonValue,
  type MessageRole,
  type PlanEntry,
  type PlanUpdatedPayload,
  type StopReason,
  type ToolCompletedPayload,
  type UsageUpdatedPayload,
} from '@agentlane/contract';
import { approvalInterrupt, questionInterrupt } from './interrupts.js';
import { MessageList } from './message-list.js';
import { OpenParts } from './open-parts.js';

/** The run's state as AG-UI sees it: the plan and the usage by scope (STATE_SNAPSHOT, then STATE_DELTA). */
export interface AgUiState {
  plan: { planId?: string; entries: PlanEntry[] } | null;
  usage: Record<string, JsonValue>;
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
  readonly #pending = new Map<string, Interrupt>();
  readonly #parts = new OpenParts((event) => this.#stamp(event));
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
    this.#parts.forgetOpen();
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
    this.#parts.closeAll(out);
    for (const e of out) this.messages.apply(e);
    return out;
  }

  #stamp<E extends Event>(event: E): E {
    return { ...event, timestamp: this.#ts };
  }

  /** Kinds AG-UI has no event for (and side notes of those it has): CUSTOM `agentlane.<kind>`. */
  #custom(event: CanonicalEvent, out: Event[]): void {
    out.push(this.#stamp({ type: EventType.CUSTOM, name: `agentlane.${event.kind}`, value: event.payload }));
  }

  #translate(event: CanonicalEvent, out: Event[]): void {
    const parts = this.#parts;
    switch (event.kind) {
      case 'message.started':
        this.#roles.set(turnScoped(event, event.payload.messageId), event.payload.role);
        return;
      case 'message.delta': {
        const id = turnScoped(event, event.payload.messageId);
        if (this.#roles.get(id) !== 'user' && event.payload.delta !== '')
          parts.text(id, event.payload.delta, out);
        return;
      }
      case 'message.completed':
        if (event.payload.role === 'assistant')
          parts.completeText(turnScoped(event, event.payload.messageId), event.payload.text, out);
        return;
      case 'reasoning.delta':
        if (event.payload.delta !== '')
          parts.reasoning(turnScoped(event, event.payload.reasoningId), event.payload.delta, out);
        return;
      case 'reasoning.completed':
        parts.completeReasoning(turnScoped(event, event.payload.reasoningId), event.payload.text, out);
        return;
      case 'tool.started':
        parts.startTool(event.payload.toolCallId, event.payload.name, out);
        parts.toolArgs(
          event.payload.toolCallId,
          event.payload.input,
          event.payload.status === 'running',
          out,
        );
        return;
      case 'tool.progress':
        this.#onToolProgress(event, out);
        return;
      case 'tool.completed':
        this.#onToolCompleted(event.payload, out);
        return;
      case 'approval.requested':
        this.#onApprovalRequested(event, out);
        return;
      case 'question.requested':
        this.#pending.set(event.payload.questionId, questionInterrupt(event.runId, event.payload));
        this.#custom(event, out);
        return;
      case 'approval.resolved':
        this.#pending.delete(event.payload.approvalId);
        this.#custom(event, out);
        return;
      case 'question.resolved':
        this.#pending.delete(event.payload.questionId);
        this.#custom(event, out);
        return;
      case 'plan.updated':
        this.#onPlanUpdated(event.payload, out);
        return;
      case 'usage.updated':
        this.#onUsageUpdated(event.payload, out);
        return;
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
        this.#custom(event, out);
        return;
      default:
        assertNeverEvent(event);
    }
  }

  #onToolProgress(event: CanonicalEventOf<'tool.progress'>, out: Event[]): void {
    const p = event.payload;
    this.#parts.startTool(p.toolCallId, 'tool', out);
    if (p.inputDelta !== undefined) this.#parts.toolArgsDelta(p.toolCallId, p.inputDelta, out);
    if (p.input !== undefined || p.status === 'running')
      this.#parts.toolArgs(p.toolCallId, p.input, p.status === 'running', out);
    if (p.partialOutput !== undefined || p.message !== undefined) this.#custom(event, out);
  }

  /** TOOL_CALL_RESULT: the output as text when the call completed, else its status and error. */
  #onToolCompleted(p: ToolCompletedPayload, out: Event[]): void {
    this.#parts.settleTool(p.toolCallId, out);
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
  }

  /** An approval of a tool call completes the call's arguments first: the client shows what it approves. */
  #onApprovalRequested(event: CanonicalEventOf<'approval.requested'>, out: Event[]): void {
    const p = event.payload;
    if (p.toolCallId) {
      this.#parts.startTool(p.toolCallId, p.subject.kind, out);
      this.#parts.toolArgs(p.toolCallId, p.input, true, out);
    }
    this.#pending.set(p.approvalId, approvalInterrupt(event.runId, p));
    this.#custom(event, out);
  }

  #onPlanUpdated(p: PlanUpdatedPayload, out: Event[]): void {
    const plan = { ...(p.planId ? { planId: p.planId } : {}), entries: p.entries };
    this.state.plan = plan;
    out.push(
      this.#stamp({ type: EventType.STATE_DELTA, delta: [{ op: 'add', path: '/plan', value: plan }] }),
    );
  }

  /** Usage goes into the state by scope; a step's usage ends the step. */
  #onUsageUpdated(p: UsageUpdatedPayload, out: Event[]): void {
    const { scope } = p;
    this.state.usage[scope] = p as unknown as JsonValue;
    out.push(
      this.#stamp({ type: EventType.STATE_DELTA, delta: [{ op: 'add', path: `/usage/${scope}`, value: p }] }),
    );
    if (scope === 'step') this.#parts.closeStep(out);
  }
}

function toText(value: JsonValue): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * The AG-UI id of an engine's message or reasoning block: `<turnId>:<id>`. An engine's ids are unique within
 * a turn, not always across turns (the built-in engine numbers them by model step), and an AG-UI client
 * appends a start for a known id to that message: a second turn's answer was merged into the first one's.
 */
function turnScoped(event: CanonicalEvent, id: string): string {
  return `${event.turnId}:${id}`;
}
