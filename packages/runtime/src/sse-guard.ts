import { SseBlockSplitter } from '@agentlane/engine-kit';

/**
 * What the model call's guarded fetch (model-fetch.ts) reads of a streamed answer before the AI SDK parses it:
 * where its events end, which of them are progress, and the empty `data:` lines it must not see.
 */

/**
 * The most characters of a stream held without an event boundary (a blank line) before the call fails: far
 * above any real event (a 16 KB slice of text is ~40 KB of JSON), far below what the SDK's parser can hold.
 */
export const MAX_PENDING_EVENT_CHARS = 16 * 1024 * 1024;

/** A stream the engine stopped reading because its shape is unbounded (no event boundary comes). */
export class ModelStreamUnbounded extends Error {
  override name = 'ModelStreamUnbounded';
}

/**
 * Events that say the server is alive, not that the answer moved on: Anthropic's `ping`, the Responses API's
 * `response.created` / `in_progress` / `queued` (the server may repeat the last ones while it waits).
 */
const KEEP_ALIVE_TYPES = new Set(['ping', 'response.created', 'response.in_progress', 'response.queued']);

/** A keep-alive chunk is small; a larger event is taken as progress without being parsed. */
const MAX_PARSED_CHARS = 4096;

/** A field of text or tool input that is not empty: progress, known without parsing the event. */
const SOME_TEXT =
  /"(?:content|text|delta|reasoning_content|reasoning|arguments|partial_json|thinking)":\s*"[^"]/;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const emptyValue = (v: unknown) =>
  v === null || v === undefined || v === '' || (Array.isArray(v) && v.length === 0);
/** No field holds anything (a role or a type alone is no content). */
const emptyRecord = (v: unknown) =>
  !isObj(v) || Object.entries(v).every(([k, x]) => k === 'role' || k === 'type' || emptyValue(x));

/**
 * Whether one event of an answer carries any of it: text, reasoning, a tool call, a finish (or something the
 * engine does not know, which the SDK then reads). Not progress: keep-alive event types, a Chat Completions
 * chunk with no choices or only empty deltas (`choices: []` every second kept a call alive for minutes), a
 * typed delta event (Anthropic, Responses) whose delta is empty, a Gemini chunk whose candidates hold no part
 * and no finish.
 */
export function carriesAnswer(type: string, data: string): boolean {
  if (KEEP_ALIVE_TYPES.has(type)) return false;
  if (data.length > MAX_PARSED_CHARS || SOME_TEXT.test(data)) return true;
  let v: unknown;
  try {
    v = JSON.parse(data);
  } catch {
    return true; // `[DONE]`, or not JSON: the SDK decides what it is
  }
  if (!isObj(v)) return true;
  if (typeof v.type === 'string' && /(^|[._])delta$/.test(v.type) && 'delta' in v)
    return typeof v.delta === 'string' ? v.delta !== '' : !emptyRecord(v.delta);
  if (Array.isArray(v.choices))
    return (
      !emptyValue(v.usage) ||
      v.choices.some((c) => !isObj(c) || !emptyValue(c.finish_reason) || !emptyRecord(c.delta))
    );
  if ('candidates' in v || 'usageMetadata' in v) {
    const candidates = Array.isArray(v.candidates) ? v.candidates : [];
    return candidates.some(
      (c) =>
        !isObj(c) ||
        !emptyValue(c.finishReason) ||
        (isObj(c.content) && Array.isArray(c.content.parts) && c.content.parts.some((p) => !emptyRecord(p))),
    );
  }
  return true;
}

/**
 * Reads SSE event boundaries from bytes: which events are progress, whether the final event came. Each read is
 * scanned once (text held without a boundary is kept in pieces, joined when the boundary comes), and more than
 * MAX_PENDING_EVENT_CHARS without one fails the call: a stream that never sends a blank line was held whole
 * and rescanned on every read (90 MB in a minute, quadratic).
 */
export class SseProgress {
  private readonly blocks: SseBlockSplitter;
  finished: boolean;

  constructor(
    private readonly finalEvent: string | undefined,
    maxPending = MAX_PENDING_EVENT_CHARS,
  ) {
    this.finished = finalEvent === undefined;
    this.blocks = new SseBlockSplitter(
      maxPending,
      (max) =>
        new ModelStreamUnbounded(
          `the model stream sent more than ${max} bytes without an event boundary: the call was stopped`,
        ),
    );
  }

  /** Whether the bytes completed at least one event that carries some of the answer. */
  feed(bytes: Uint8Array): boolean {
    let progress = false;
    for (const block of this.blocks.feed(bytes)) if (this.event(block)) progress = true;
    if (this.blocks.overflow) throw this.blocks.overflow;
    return progress;
  }

  private event(block: string): boolean {
    let event = '';
    let data = '';
    for (const line of block.split('\n')) {
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data += line.slice(5).trim();
    }
    if (data === '') return false;
    const type = event || /"type"\s*:\s*"([^"]+)"/.exec(data)?.[1] || '';
    if (this.finalEvent !== undefined && type === this.finalEvent) this.finished = true;
    return carriesAnswer(type, data);
  }
}

const CR = 0x0d;
const LF = 0x0a;
const DATA = Buffer.from('data');
/** A line start held back this long is no empty data line any more (a hostile run of spaces). */
const MAX_HELD = 256;

/**
 * Drops empty `data:` lines from an SSE stream before the SDK sees them: the SDK parses every event's data as
 * JSON, so one `data:` line with nothing after it failed the whole call ("Unexpected end of JSON input") even
 * when valid events followed. Such a line (`data`, `data:`, `data: ` and blanks) becomes a comment (its first
 * byte `:`), the same length; a read that ends inside a line that may still become one holds that line back.
 */
export class EmptyDataLines {
  private held: Buffer | null = null;
  /** The next byte starts a line. */
  private lineStart = true;

  clean(input: Uint8Array): Uint8Array {
    const fresh = Buffer.from(input.buffer, input.byteOffset, input.byteLength);
    const buf = this.held ? Buffer.concat([this.held, fresh]) : fresh;
    this.held = null;
    let out: Buffer = buf;
    let end = buf.length;
    for (let at = buf.indexOf(DATA); at >= 0; at = buf.indexOf(DATA, at + DATA.length)) {
      if (!(at === 0 ? this.lineStart : buf[at - 1] === LF || buf[at - 1] === CR)) continue;
      let i = at + DATA.length;
      if (buf[i] === 0x3a) i++;
      while (buf[i] === 0x20 || buf[i] === 0x09) i++;
      if (i >= buf.length) {
        if (buf.length - at <= MAX_HELD) end = at;
        break;
      }
      if (buf[i] !== LF && buf[i] !== CR) continue;
      if (out === buf) out = Buffer.from(buf);
      out[at] = 0x3a;
    }
    if (end === buf.length) end = this.partialPrefix(buf);
    if (end < buf.length) this.held = Buffer.from(buf.subarray(end));
    const last = end > 0 ? buf[end - 1] : undefined;
    if (last !== undefined) this.lineStart = last === LF || last === CR;
    return out.subarray(0, end);
  }

  /** What is held back at the end of the stream. */
  flush(): Uint8Array | null {
    const held = this.held;
    this.held = null;
    return held;
  }

  /** Where a last line that is a beginning of `data` starts (the length when there is none). */
  private partialPrefix(buf: Buffer): number {
    const lf = Math.max(buf.lastIndexOf(LF), buf.lastIndexOf(CR));
    const start = lf + 1;
    if (start === 0 && !this.lineStart) return buf.length;
    const tail = buf.length - start;
    if (tail === 0 || tail >= DATA.length) return buf.length;
    return buf.subarray(start).equals(DATA.subarray(0, tail)) ? start : buf.length;
  }
}
