/**
 * Two things a model server may send that the AI SDK would not survive or would silently lose, repaired in the
 * stream's SSE `data:` lines before the SDK parses them (only lines holding one of the NEEDLES are read):
 *
 * - Token counts that are no count (negative, fractional, too large to be a number) are dropped: the SDK
 *   rejected the whole chunk (a count of 1e400 parses as Infinity) and the turn failed although its answer had
 *   arrived. A dropped count is unknown, as if the server had not sent it.
 * - A Chat Completions tool call that starts with an empty name gets BLANK_TOOL_NAME: the SDK drops such a call
 *   without a trace, so the model was never answered. The runtime answers it as it answers any unknown name
 *   (events and ledger rows need a name, so they show this one), and the history sends it back as `""`
 *   (`wireToolName`).
 *
 * The caller is told what was repaired, so the turn can say so.
 */

const CR = 0x0d;
const LF = 0x0a;
/** `usage`, `usageMetadata`, `Usage`; `"name"` as a JSON key (a quote inside a string is escaped). */
const NEEDLES = [Buffer.from('sage'), Buffer.from('"name"')];
const DATA = 'data:';

/** The name a blank tool-call name travels under through the SDK (no tool can have it: it has blanks). */
export const BLANK_TOOL_NAME = '(empty tool name)';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Obj = { [key: string]: Json };
const isObj = (v: Json | undefined): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isCount = (v: number) => Number.isSafeInteger(v) && v >= 0;
/** Keys of usage objects that hold a count: `total_tokens`, `tokenCount`, `cached_tokens`, `input_tokens`. */
const COUNT_NAME = /tokens?|count/i;

export interface Repaired {
  /** Paths of the token counts dropped from one event (`usage.prompt_tokens`). */
  usage?: string[];
  /** Tool calls of one event that started with an empty name. */
  blankToolNames?: number;
}

/** Reads lines whole: the bytes after a stream's last line end are held until the next one (or the end). */
export class SseRepairs {
  private held: Buffer[] = [];
  /** Tool calls begun in this stream, by choice and index (or id): a blank name on them is a continuation. */
  private readonly calls = new Set<string>();

  constructor(private readonly repaired: (r: Repaired) => void) {}

  clean(input: Uint8Array): Uint8Array {
    const fresh = Buffer.from(input.buffer, input.byteOffset, input.byteLength);
    const end = Math.max(fresh.lastIndexOf(LF), fresh.lastIndexOf(CR)) + 1;
    if (end === 0) {
      this.held.push(fresh);
      return new Uint8Array(0);
    }
    const head = fresh.subarray(0, end);
    const lines = this.held.length > 0 ? Buffer.concat([...this.held, head]) : head;
    this.held = end < fresh.length ? [fresh.subarray(end)] : [];
    return this.lines(lines);
  }

  /** What is held back at the end of the stream, repaired. */
  flush(): Uint8Array | null {
    if (this.held.length === 0) return null;
    const rest = Buffer.concat(this.held);
    this.held = [];
    return this.lines(rest);
  }

  private lines(buf: Buffer): Buffer {
    // Each needle's next place is searched for again only once the lines passed it (one scan of the bytes).
    const places = NEEDLES.map(() => -2);
    const next = (from: number) => {
      let first = -1;
      NEEDLES.forEach((needle, i) => {
        if (places[i] !== -1 && (places[i] as number) < from) places[i] = buf.indexOf(needle, from);
        const place = places[i] as number;
        if (place >= 0 && (first < 0 || place < first)) first = place;
      });
      return first;
    };
    let at = next(0);
    if (at < 0) return buf;
    const out: Buffer[] = [];
    let from = 0;
    for (; at >= 0 && from < buf.length; at = next(from)) {
      const start = Math.max(buf.lastIndexOf(LF, at), buf.lastIndexOf(CR, at)) + 1;
      const end = lineEnd(buf, at);
      const line = this.line(buf.toString('utf8', start, end));
      out.push(buf.subarray(from, line === null ? end : start));
      if (line !== null) out.push(Buffer.from(line));
      from = end;
    }
    out.push(buf.subarray(from));
    return Buffer.concat(out);
  }

  /** The line repaired; null when it stays as it is. */
  private line(text: string): string | null {
    if (!text.startsWith(DATA)) return null;
    let value: Json;
    try {
      value = JSON.parse(text.slice(DATA.length)) as Json;
    } catch {
      return null; // not JSON (`[DONE]`, or broken): the SDK decides what it is
    }
    const usage: string[] = [];
    usageIn(value, usage);
    const blankToolNames = this.blankNames(value);
    if (usage.length === 0 && blankToolNames === 0) return null;
    this.repaired({
      ...(usage.length > 0 ? { usage } : {}),
      ...(blankToolNames > 0 ? { blankToolNames } : {}),
    });
    return `${DATA} ${JSON.stringify(value)}`;
  }

  /** Names the Chat Completions tool calls of a chunk that start with a blank name; how many. */
  private blankNames(chunk: Json): number {
    if (!isObj(chunk) || !Array.isArray(chunk.choices)) return 0;
    let blank = 0;
    for (const choice of chunk.choices) {
      const delta = isObj(choice) ? choice.delta : undefined;
      const calls = isObj(delta) && Array.isArray(delta.tool_calls) ? delta.tool_calls : [];
      for (const call of calls) {
        if (!isObj(call)) continue;
        const key =
          typeof call.index === 'number'
            ? `${isObj(choice) ? choice.index : 0}:${call.index}`
            : typeof call.id === 'string' && call.id.trim() !== ''
              ? `id:${call.id}`
              : null;
        const starts = key !== null && !this.calls.has(key);
        if (key !== null) this.calls.add(key);
        const fn = call.function;
        if (starts && isObj(fn) && typeof fn.name === 'string' && fn.name.trim() === '') {
          fn.name = BLANK_TOOL_NAME;
          blank++;
        }
      }
    }
    return blank;
  }
}

/** The name a tool call had on the wire: BLANK_TOOL_NAME was an empty one (the history sends it back so). */
export function wireToolName(name: string): string {
  return name === BLANK_TOOL_NAME ? '' : name;
}

function lineEnd(buf: Buffer, from: number): number {
  for (let i = from; i < buf.length; i++) if (buf[i] === LF || buf[i] === CR) return i;
  return buf.length;
}

/**
 * Drops, in place, the numbers that are no count under a usage key of the event or of one of its objects
 * (`usage`, `message.usage`, `response.usage`, `usageMetadata`); their paths go to `paths`. Deeper keys are
 * left alone: a tool call's input may have a field named usage.
 */
function usageIn(event: Json, paths: string[], depth = 0, path = ''): void {
  if (!isObj(event)) return;
  for (const [key, v] of Object.entries(event)) {
    const at = path ? `${path}.${key}` : key;
    if (/usage/i.test(key)) counts(event, key, at, paths);
    else if (depth === 0) usageIn(v, paths, 1, at);
  }
}

/** Drops `holder[key]` when it is no count (a string, a boolean, a number that is none), or such values inside it. */
function counts(holder: Obj, key: string, path: string, paths: string[]): void {
  const v = holder[key];
  // A string or boolean under a count's name failed the SDK's validation of the whole event, and the turn;
  // other strings (a modality, a service tier) are the provider's own and stay.
  const notCount =
    typeof v === 'number'
      ? !isCount(v)
      : (typeof v === 'string' || typeof v === 'boolean') && COUNT_NAME.test(key);
  if (typeof v === 'number' || notCount) {
    if (!notCount) return;
    delete holder[key];
    paths.push(path);
  } else if (Array.isArray(v)) {
    v.forEach((x, i) => {
      if (isObj(x)) for (const k of Object.keys(x)) counts(x, k, `${path}[${i}].${k}`, paths);
    });
  } else if (isObj(v)) for (const k of Object.keys(v)) counts(v, k, `${path}.${k}`, paths);
}
