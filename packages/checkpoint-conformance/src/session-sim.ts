import {
  BinaryOpAggregateChannel,
  ChannelSet,
  type ChannelWrite,
  DataChannel,
  EphemeralValueChannel,
  LastValueChannel,
  NamedBarrierChannel,
  newCheckpointId,
  TopicChannel,
} from '@agentlane/checkpoints';
import type { Checkpoint, JsonValue, StageId } from '@agentlane/contract';

let counter = 0;
const RUN = Math.random().toString(36).slice(2, 8);

/** A fresh id, unique within the process and across concurrent runs against one database. */
export function freshId(prefix: string): string {
  counter++;
  return `${prefix}-${RUN}-${counter.toString().padStart(6, '0')}`;
}

const STAGES: StageId[] = ['anchor-plan', 'tool-loop', 'synthesize', 'post-turn'];

/**
 * A session that evolves like a runtime's: every turn appends a message and touches the other five
 * channel kinds, and `checkpoint()` produces the envelope after it.
 */
export class SessionSim {
  readonly sessionId: string;
  readonly channels: ChannelSet;
  private turn = 0;
  private lastId: string | undefined;

  constructor(sessionId = freshId('session')) {
    this.sessionId = sessionId;
    this.channels = new ChannelSet({
      conversation: new BinaryOpAggregateChannel('append'),
      plan: new LastValueChannel(),
      versionVector: new BinaryOpAggregateChannel('vector_merge'),
      events: new TopicChannel({ accumulate: true }),
      scratch: new EphemeralValueChannel(),
      joined: new NamedBarrierChannel(['planner', 'tools']),
      files: new DataChannel(4),
      tokens: new BinaryOpAggregateChannel('sum'),
    });
  }

  /** One turn's writes; `text` lets a test choose the message size. */
  step(text = `message ${this.turn}`): void {
    this.turn++;
    const t = this.turn;
    const writes: ChannelWrite[] = [
      {
        channel: 'conversation',
        value: { id: `m${t}`, role: t % 2 ? 'user' : 'assistant', parts: [{ type: 'text', text }] },
      },
      { channel: 'versionVector', value: { [t % 3 ? 'server' : 'client']: t } },
      { channel: 'tokens', value: t * 7 },
    ];
    if (t % 2 === 0)
      writes.push({ channel: 'plan', value: [{ content: `step ${t}`, status: 'pending' }] as JsonValue });
    if (t % 3 === 0) writes.push({ channel: 'scratch', value: { note: t } });
    if (t % 4 === 0) writes.push({ channel: 'events', value: { turn: t } });
    writes.push({ channel: 'joined', value: t % 2 ? 'planner' : 'tools' });
    writes.push({ channel: 'files', value: { key: `f${t % 6}`, value: t } });
    this.channels.step(writes);
    if (this.channels.channel('joined').isAvailable()) this.channels.channel('joined').consume();
  }

  /** The envelope of the current state, child of the previous `checkpoint()` unless `parent` is given. */
  checkpoint(options: { id?: string; parent?: string | null; stageId?: StageId } = {}): Checkpoint {
    const id = options.id ?? newCheckpointId();
    const parent = options.parent === undefined ? this.lastId : (options.parent ?? undefined);
    this.lastId = id;
    return {
      id,
      sessionId: this.sessionId,
      stageId: options.stageId ?? (STAGES[this.turn % STAGES.length] as StageId),
      createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, this.turn)).toISOString(),
      schemaVersion: 1,
      channels: this.channels.snapshot(),
      ...(parent === undefined ? {} : { parentCheckpointId: parent }),
    };
  }
}
