import { type LanguageModel, type LanguageModelMiddleware, wrapLanguageModel } from 'ai';
import { MAX_COALESCED_CHARS } from '../delta-coalescer.js';

type StreamResult = Awaited<ReturnType<NonNullable<LanguageModelMiddleware['wrapStream']>>>;
type ProviderPart = StreamResult['stream'] extends ReadableStream<infer P> ? P : never;
type Delta = Extract<ProviderPart, { type: 'text-delta' | 'reasoning-delta' | 'tool-input-delta' }>;

/**
 * How far the provider's stream may run ahead of the reader of the call's parts: in deltas, in characters (text,
 * reasoning and tool input together).
 */
export const AHEAD_DELTAS = 1024;
export const AHEAD_CHARS = 256 * 1024;

const isDelta = (part: ProviderPart): part is Delta =>
  part.type === 'text-delta' || part.type === 'reasoning-delta' || part.type === 'tool-input-delta';

/** The characters of a part of streamText's stream that a delta counted on its way in (0: none). */
function deltaChars(part: { type: string; text?: unknown; delta?: unknown }): number {
  const piece =
    part.type === 'text-delta' || part.type === 'reasoning-delta'
      ? part.text
      : part.type === 'tool-input-delta'
        ? part.delta
        : undefined;
  return typeof piece === 'string' ? piece.length : 0;
}

/**
 * Between a model call's provider stream and the reader of streamText's parts (model-call.ts):
 *
 * - Backpressure. The AI SDK reads the provider's stream eagerly (its tool transformation pipes it into a
 *   queue that never says "full"), so a model server faster than the reader filled memory without bound: an
 *   endless answer was read at network speed (500 MB in 6 s, all of it held by the SDK) while the reader had
 *   taken 9 MB of it and was about to stop the call. Text, reasoning and tool-input deltas that are not empty
 *   (which the SDK hands on one for one) are counted as they enter the SDK and as the reader takes them; while
 *   the reader is more than AHEAD_DELTAS or AHEAD_CHARS behind, the provider's stream waits until it caught up
 *   half of that, and with it the network read (TCP does the rest). Tool input counts like text: the provider
 *   keeps a call's input whole while it streams, and an endless one was read as fast as the network gave it.
 * - Fewer deltas. The SDK keeps a call's text by appending every delta (several times over: a rope node of
 *   32 bytes each), and every part costs it a pass through a dozen web streams; deltas of one block (text,
 *   reasoning, a call's tool input) that the provider hands over in the same turn of the event loop enter it as
 *   one (at most MAX_COALESCED_CHARS), as the DeltaCoalescer joins the frames. Off with
 *   `coalesceDeltas: false` (the recorded-turn corpus).
 *
 * One flow per call.
 */
export class StreamFlow {
  private passed = 0;
  private passedChars = 0;
  private taken = 0;
  private takenChars = 0;
  private wake: (() => void) | null = null;
  private released = false;

  constructor(private readonly merge = true) {}

  /** The model with its stream under this flow; a model that is no AI SDK v3 object goes as it is. */
  model(model: LanguageModel): LanguageModel {
    if (typeof model !== 'object' || model.specificationVersion !== 'v3') return model;
    return wrapLanguageModel({
      model,
      middleware: {
        specificationVersion: 'v3',
        wrapStream: async ({ doStream }) => {
          const result = await doStream();
          return { ...result, stream: result.stream.pipeThrough(this.gate()) };
        },
      },
    });
  }

  /** The reader took a part of streamText's stream. */
  took(part: { type: string; text?: unknown; delta?: unknown }): void {
    const chars = deltaChars(part);
    if (chars === 0) return;
    this.taken++;
    this.takenChars += chars;
    if (this.wake && !this.behind(2)) this.resume();
  }

  /** The reader is done (the stream ended, failed or was stopped): nothing waits for it any more. */
  release(): void {
    this.released = true;
    this.resume();
  }

  private resume(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  /** Whether the reader is more than the allowance (divided by `by`) behind. */
  private behind(by = 1): boolean {
    return (
      this.passed - this.taken > AHEAD_DELTAS / by || this.passedChars - this.takenChars > AHEAD_CHARS / by
    );
  }

  private gate(): TransformStream<ProviderPart, ProviderPart> {
    let held: Delta | null = null;
    let pieces: string[] = [];
    let chars = 0;
    let timer: NodeJS.Immediate | null = null;
    let out: TransformStreamDefaultController<ProviderPart> | null = null;
    const pass = (part: ProviderPart) => {
      if (isDelta(part) && part.delta !== '') {
        this.passed++;
        this.passedChars += part.delta.length;
      }
      try {
        out?.enqueue(part);
      } catch {
        // The stream was cancelled or failed while a joined delta waited for its turn: nobody reads it.
      }
    };
    const flush = () => {
      if (timer) clearImmediate(timer);
      timer = null;
      if (!held) return;
      const part = pieces.length === 1 ? held : { ...held, delta: pieces.join('') };
      held = null;
      pieces = [];
      pass(part);
    };
    return new TransformStream<ProviderPart, ProviderPart>({
      start: (controller) => {
        out = controller;
      },
      transform: async (part, controller) => {
        out = controller;
        if (isDelta(part) && part.delta !== '') {
          while (!this.released && this.behind())
            await new Promise<void>((resolve) => {
              this.wake = resolve;
            });
          const joins =
            held !== null &&
            held.type === part.type &&
            held.id === part.id &&
            part.providerMetadata === undefined &&
            chars + part.delta.length <= MAX_COALESCED_CHARS;
          if (joins) {
            pieces.push(part.delta);
            chars += part.delta.length;
            return;
          }
          flush();
          if (this.merge && part.providerMetadata === undefined) {
            held = part;
            pieces = [part.delta];
            chars = part.delta.length;
            timer = setImmediate(flush);
            return;
          }
        } else flush();
        pass(part);
      },
      flush: () => flush(),
    });
  }
}
