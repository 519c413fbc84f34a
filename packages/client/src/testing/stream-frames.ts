import {
  type CanonicalEvent,
  type CanonicalEventDraft,
  type CanonicalStreamEvent,
  noCapabilities,
  type RunCanonicalizedEvent,
  type RunStatusEvent,
  type StreamEvent,
} from '@agentlane/contract';

export interface StreamFramesOptions {
  threadId?: string;
  runId?: string;
  turnId?: string;
  /** `identity.provider` of every event. */
  provider?: string;
  /** The eventId of the n-th event when `emit` is given none. */
  eventId?: (runId: string, seq: number) => string;
  /** The `ts` of the first event; each next one is a second later. */
  startTime?: Date;
}

/**
 * Builds StreamEvents the way a server delivers them — deliverySeq per thread, a seq and an eventId per event,
 * revisions per eventId — so a UI or a reducer can be tested without a server.
 */
export class StreamFrames {
  readonly threadId: string;
  runId: string;
  turnId: string;
  deliverySeq = 0;
  readonly frames: StreamEvent[] = [];
  private seq = 0;
  private readonly provider: string;
  private readonly eventId: (runId: string, seq: number) => string;
  private readonly startTime: number;

  constructor(options: StreamFramesOptions = {}) {
    this.threadId = options.threadId ?? 'th1';
    this.runId = options.runId ?? 'run1';
    this.turnId = options.turnId ?? 'turn1';
    this.provider = options.provider ?? 'test';
    this.eventId = options.eventId ?? ((_run, seq) => `ev${seq}`);
    this.startTime = (options.startTime ?? new Date(Date.UTC(2026, 0, 1))).getTime();
  }

  /** The deliverySeq of the last delivered row. */
  get head(): number {
    return this.deliverySeq;
  }

  emit(
    draft: CanonicalEventDraft,
    options: { eventId?: string; revision?: number; namespace?: string[] } = {},
  ): CanonicalStreamEvent {
    this.deliverySeq += 1;
    this.seq += 1;
    const event = {
      ...draft,
      schemaVersion: 1,
      eventId: options.eventId ?? this.eventId(this.runId, this.seq),
      seq: this.seq,
      runId: this.runId,
      threadId: this.threadId,
      turnId: this.turnId,
      ts: new Date(this.startTime + this.seq * 1000).toISOString(),
      identity: { provider: this.provider },
    } as CanonicalEvent;
    const frame: CanonicalStreamEvent = {
      type: draft.kind,
      deliverySeq: this.deliverySeq,
      revision: options.revision ?? 1,
      provisional: true,
      event,
      ...(options.namespace ? { namespace: options.namespace } : {}),
    };
    this.frames.push(frame);
    return frame;
  }

  /** A `session.started` row with the given capability flags on top of none. */
  sessionStarted(flags: Partial<Record<string, boolean>> = {}): CanonicalStreamEvent {
    return this.emit({
      kind: 'session.started',
      payload: {
        provider: this.provider,
        origin: 'new',
        generation: 1,
        capabilities: { ...noCapabilities(), ...flags },
      },
    });
  }

  /** Streams text as many small deltas, the way engines do. */
  streamText(messageId: string, text: string, chunk = 7): void {
    this.emit({ kind: 'message.started', payload: { messageId, role: 'assistant' } });
    for (let i = 0; i < text.length; i += chunk) {
      this.emit({
        kind: 'message.delta',
        payload: { messageId, partId: `${messageId}-p`, delta: text.slice(i, i + chunk) },
      });
    }
  }

  runStatus(status: RunStatusEvent['status']): RunStatusEvent {
    const frame: RunStatusEvent = { type: 'run.status', threadId: this.threadId, runId: this.runId, status };
    this.frames.push(frame);
    return frame;
  }

  /** The run's completion signal: every row delivered so far becomes final. */
  canonicalized(status: 'completed' | 'failed' = 'completed'): RunCanonicalizedEvent {
    const frame: RunCanonicalizedEvent = {
      type: 'run.canonicalized',
      threadId: this.threadId,
      runId: this.runId,
      status,
      lastDeliverySeq: this.deliverySeq,
      completedAt: new Date(this.startTime + 30 * 60_000).toISOString(),
    };
    this.frames.push(frame);
    return frame;
  }
}
