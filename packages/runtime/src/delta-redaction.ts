import type { SecretRedactor } from '@agentlane/engine-kit';

/** A streaming redactor (SecretRedactor.stream()). */
type Stream = ReturnType<SecretRedactor['stream']>;

/** The field of a delta part that holds its text, by part type. */
const DELTA_FIELD: Record<string, 'text' | 'delta'> = {
  'text-delta': 'text',
  'reasoning-delta': 'text',
  'tool-input-delta': 'delta',
};

/** The part that ends a block, and the delta type of the block it ends. */
const BLOCK_END: Record<string, string> = {
  'text-end': 'text-delta',
  'reasoning-end': 'reasoning-delta',
  'tool-input-end': 'tool-input-delta',
};

/** Parts after which no delta of the step's blocks can follow: whatever is held goes out before them. */
const STEP_END = new Set(['finish-step', 'finish', 'error', 'abort']);

type Part = { type: string; id?: string } & Record<string, unknown>;

/**
 * The model's streamed text, reasoning and tool input with the engine's secrets redacted across deltas: a
 * model (or a provider's chunking) may split a key over two deltas, which a per-delta redaction would let
 * through, and the translator joins the deltas back into the answer, the conversation and the checkpoint. Each
 * block (part type and id) has its own StreamRedactor: a delta is emitted without the tail that may start a
 * secret, and that tail goes out with the next delta or, at the block's end, as one delta before the end part.
 */
export class DeltaRedaction {
  private readonly blocks = new Map<string, { stream: Stream; last: Part; field: 'text' | 'delta' }>();

  constructor(private readonly redactor: SecretRedactor) {}

  /** The parts to emit for one stream part, in order (none while a delta's whole text is held back). */
  parts<P extends { type: string }>(part: P): P[] {
    const p = part as unknown as Part;
    const field = DELTA_FIELD[p.type];
    if (field) return this.delta(p, field) as unknown as P[];
    const ends = BLOCK_END[p.type];
    if (ends) return [...this.flush(`${ends}:${p.id}`), p] as unknown as P[];
    if (STEP_END.has(p.type)) return [...this.rest(), p] as unknown as P[];
    return [part];
  }

  /** The held tails of every block still open (the stream ended without their end parts). */
  rest(): Part[] {
    return [...this.blocks.keys()].flatMap((key) => this.flush(key));
  }

  private delta(p: Part, field: 'text' | 'delta'): Part[] {
    const text = p[field];
    if (typeof text !== 'string' || text === '') return [p];
    const key = `${p.type}:${p.id}`;
    let block = this.blocks.get(key);
    if (!block) {
      block = { stream: this.redactor.stream(), last: p, field };
      this.blocks.set(key, block);
    }
    block.last = p;
    const out = block.stream.push(text);
    if (out === '') return [];
    return [out === text ? p : { ...p, [field]: out }];
  }

  private flush(key: string): Part[] {
    const block = this.blocks.get(key);
    if (!block) return [];
    this.blocks.delete(key);
    const out = block.stream.flush();
    return out === '' ? [] : [{ ...block.last, [block.field]: out }];
  }
}
