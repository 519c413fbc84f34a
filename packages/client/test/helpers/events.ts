import {
  type CanonicalEvent,
  type CanonicalEventDraft,
  type CanonicalStreamEvent,
  noCapabilities,
  type RunCanonicalizedEvent,
} from '@agentlane/contract';

/** Builds delivered StreamEvents for a thread, numbering deliverySeq as a store would. */
export class ThreadBuilder {
  private deliverySeq = 0;
  private seq = 0;
  readonly frames: (CanonicalStreamEvent | RunCanonicalizedEvent)[] = [];

  constructor(
    readonly threadId = 'th1',
    public runId = 'run1',
    public turnId = 'turn1',
  ) {}

  emit(
    draft: CanonicalEventDraft,
    options: { eventId?: string; revision?: number; namespace?: string[] } = {},
  ): CanonicalStreamEvent {
    this.deliverySeq += 1;
    this.seq += 1;
    const event = {
      ...draft,
      schemaVersion: 1,
      eventId: options.eventId ?? `ev${this.seq}`,
      seq: this.seq,
      runId: this.runId,
      threadId: this.threadId,
      turnId: this.turnId,
      ts: new Date(Date.UTC(2026, 0, 1, 0, 0, this.seq)).toISOString(),
      identity: { provider: 'test' },
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

  canonicalize(status: 'completed' | 'failed' = 'completed'): RunCanonicalizedEvent {
    const frame: RunCanonicalizedEvent = {
      type: 'run.canonicalized',
      threadId: this.threadId,
      runId: this.runId,
      status,
      lastDeliverySeq: this.deliverySeq,
      completedAt: '2026-01-01T00:10:00.000Z',
    };
    this.frames.push(frame);
    return frame;
  }

  get head(): number {
    return this.deliverySeq;
  }
}

export function startedSession(b: ThreadBuilder, flags: Partial<Record<string, boolean>> = {}) {
  return b.emit({
    kind: 'session.started',
    payload: {
      provider: 'test',
      origin: 'new',
      generation: 1,
      capabilities: { ...noCapabilities(), ...flags },
    },
  });
}
