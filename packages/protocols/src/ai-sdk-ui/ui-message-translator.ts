import {
  assertNeverEvent,
  type CanonicalEvent,
  type MessageRole,
  type StopReason,
} from '@agentlane/contract';
import type { FinishReason } from 'ai';
import type { AgentlaneMessageMetadata, UiChunk } from './ui-chunk.js';
import { UiDataParts } from './ui-data-parts.js';
import { UiSteps } from './ui-steps.js';
import { UiTools } from './ui-tools.js';

export type { AgentlaneMessageMetadata, UiChunk } from './ui-chunk.js';

/** The kinds #translate hands on to #passThrough. */
type PassThroughKind =
  | 'plan.updated'
  | 'file.changed'
  | 'artifact.created'
  | 'artifact.delivered'
  | 'harness.warning'
  | 'harness.error'
  | 'turn.completed'
  | 'session.started'
  | 'session.metadata'
  | 'turn.started'
  | 'commands.updated'
  | 'mode.updated'
  | 'context.marker';

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
  readonly #steps = new UiSteps();
  readonly #tools = new UiTools(this.#steps);
  readonly #data = new UiDataParts();
  #stopReason: StopReason | undefined;
  /** An `error` chunk went out (a fatal harness.error): a failed run's end does not send a second one. */
  #errorSent = false;
  #finished = false;
  /** The deliverySeq the last `progress()` chunk carried. */
  #progressAt: number | undefined;

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
    return this.#tools.pendingApprovals;
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
   * After replaying what the client of a new stream already holds: it holds no open text or reasoning part
   * (the AI SDK resets them per stream), so the next delta opens a new part; the step its message is in goes
   * on as in an uninterrupted stream (no second `start-step`), except at a pending approval, where a stream
   * pauses and its `finish-step` ended the step (the continuation after the answer starts the next one).
   */
  forgetOpenParts(): void {
    this.#steps.forgetOpenParts(this.pendingApprovals > 0);
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

  /**
   * The message's metadata as a `message-metadata` chunk, when rows arrived since the last one: a client
   * whose stream drops mid-way then holds the last deliverySeq it has (for `?after=`), not only at `finish`.
   */
  progress(): UiChunk[] {
    const at = this.#meta.deliverySeq;
    if (at === undefined || at === this.#progressAt || this.#finished) return [];
    this.#progressAt = at;
    return [{ type: 'message-metadata', messageMetadata: this.#metadata() }];
  }

  /** Ends the stream at a pending approval: the client answers it, then posts again to continue. */
  pause(): UiChunk[] {
    const out: UiChunk[] = [];
    this.#steps.closeStep(out);
    out.push({ type: 'finish', finishReason: 'tool-calls', messageMetadata: this.#metadata() });
    return out;
  }

  /** Ends the message when the run settled (with or without a `turn.completed`). */
  finish(failure?: string): UiChunk[] {
    if (this.#finished) return [];
    this.#finished = true;
    const out: UiChunk[] = [];
    // A failed run always reaches the client as an `error` chunk (useChat's onError, chat.error), also when
    // the engine ended its turn first (the built-in engine reports `turn.completed` stopReason error).
    if (failure) {
      this.#stopReason ??= 'error';
      if (!this.#errorSent) out.push({ type: 'error', errorText: failure });
      this.#errorSent = true;
    }
    this.#steps.closeStep(out);
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
        this.#steps.messageDelta(messageId, partId, delta, out);
        return;
      }
      case 'message.completed':
        if (event.payload.role === 'assistant')
          this.#steps.messageCompleted(event.payload.messageId, event.payload.text, out);
        return;
      case 'reasoning.delta':
        this.#steps.reasoningDelta(event.payload.reasoningId, event.payload.delta, out);
        return;
      case 'reasoning.completed':
        this.#steps.reasoningCompleted(event.payload.reasoningId, event.payload.text, out);
        return;
      case 'tool.started':
        this.#tools.started(event.payload, out);
        return;
      case 'tool.progress':
        this.#tools.progress(event.payload, out);
        return;
      case 'tool.completed':
        this.#tools.completed(event.payload, out);
        return;
      case 'approval.requested':
        this.#tools.approvalRequested(event.payload, out);
        return;
      case 'approval.resolved':
        this.#tools.approvalResolved(event.payload, out);
        return;
      case 'terminal.output':
        this.#data.terminal(event.payload, out);
        return;
      case 'child.started':
      case 'child.updated':
      case 'child.completed':
        this.#data.child(event, out);
        return;
      case 'question.requested':
      case 'question.resolved':
        this.#data.question(event, out);
        return;
      case 'usage.updated':
        out.push({ type: 'data-usage', id: `usage-${event.payload.scope}`, data: event.payload });
        if (event.payload.scope === 'step') this.#steps.closeStep(out);
        return;
      default:
        this.#passThrough(event, out);
    }
  }

  /** Kinds that become one chunk each, and the session-level kinds an assistant message leaves out. */
  #passThrough(event: Extract<CanonicalEvent, { kind: PassThroughKind }>, out: UiChunk[]): void {
    switch (event.kind) {
      case 'plan.updated':
        out.push({ type: 'data-plan', id: event.payload.planId ?? 'plan', data: event.payload });
        return;
      case 'file.changed':
        out.push({ type: 'data-file-change', id: event.eventId, data: event.payload });
        return;
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
        if (event.payload.fatal) {
          out.push({ type: 'error', errorText: event.payload.message });
          this.#errorSent = true;
        } else out.push({ type: 'data-warning', id: event.eventId, data: event.payload });
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
}
