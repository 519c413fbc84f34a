import type { JsonObject, StageId, UsageCost } from '@agentlane/contract';
import type { RuntimeFrame } from './frames.js';

/** The field of a delta part that holds its text, by part type. */
const DELTA_FIELD: Record<string, 'text' | 'delta'> = {
  'text-delta': 'text',
  'reasoning-delta': 'text',
  'tool-input-delta': 'delta',
};

/**
 * The most characters one coalesced delta holds: far below the lane's artifact threshold (64 KB), so a
 * delta is never moved out of band, and large enough that a frame's envelope is noise next to its text.
 */
export const MAX_COALESCED_CHARS = 16 * 1024;

/**
 * Consecutive deltas of one block (text, reasoning, tool input) that the model stream hands over in the same
 * turn of the event loop become one `part` frame. A provider that streams fast delivers hundreds of tiny
 * chunks per socket read; one frame (one source row, one canonical delta, one place in a commit) per read
 * keeps the cost of a long answer per byte instead of per chunk. A delta waits at most until the loop's
 * check phase (setImmediate), so a slow stream, one chunk per read, is emitted as before; any other frame
 * flushes the held one first, so the order of frames never changes.
 */
export class DeltaCoalescer {
  private held: { stage: StageId; step: number; part: JsonObject; field: 'text' | 'delta' } | null = null;
  private chunks: string[] = [];
  private chars = 0;
  private timer: NodeJS.Immediate | null = null;

  /** `enabled` false: every part is emitted as it comes (the recorded-turn corpus, whose events are exact). */
  constructor(
    private readonly emit: (f: RuntimeFrame) => void,
    private readonly enabled = true,
  ) {}

  /** A stream part, JSON-safe (see safePart in turn/parts.ts). */
  part(stage: StageId, step: number, part: JsonObject, cost?: UsageCost): void {
    const field = typeof part.type === 'string' ? DELTA_FIELD[part.type] : undefined;
    const held = this.held;
    if (
      field &&
      held &&
      held.stage === stage &&
      held.step === step &&
      held.part.type === part.type &&
      held.part.id === part.id
    ) {
      const chunk = String(part[field] ?? '');
      if (this.chars + chunk.length <= MAX_COALESCED_CHARS) {
        this.chunks.push(chunk);
        this.chars += chunk.length;
        return;
      }
    }
    this.flush();
    if (field && cost === undefined && this.enabled) {
      this.held = { stage, step, part, field };
      this.chunks = [String(part[field] ?? '')];
      this.chars = this.chunks[0]?.length ?? 0;
      this.timer = setImmediate(() => this.flush());
      return;
    }
    this.emit({ rt: 'part', stage, step, part, ...(cost ? { cost } : {}) });
  }

  /** Emits the held delta, if any (call before any other frame of the turn and when the stream ends). */
  flush(): void {
    if (this.timer) clearImmediate(this.timer);
    this.timer = null;
    const held = this.held;
    if (!held) return;
    this.held = null;
    const part = this.chunks.length === 1 ? held.part : { ...held.part, [held.field]: this.chunks.join('') };
    this.chunks = [];
    this.emit({ rt: 'part', stage: held.stage, step: held.step, part });
  }
}
