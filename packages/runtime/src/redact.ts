import type { JsonObject, JsonValue } from '@agentlane/contract';

/** What a secret is replaced with. */
export const REDACTED = '[REDACTED]';

/** Secret values shorter than this are not looked for: a placeholder key like `k` would hit every word. */
export const MIN_SECRET_CHARS = 8;

/** A bearer token wherever it is: `Bearer <token>`. */
const BEARER = /\bBearer\s+[A-Za-z0-9\-._~+/]+=*/gi;

/**
 * The value of a credential header or field, however it is written: `authorization: Bearer …`,
 * `"authorization":"…"`, `\"x-api-key\":\"…\"` (JSON inside a JSON string), `api-key=…`, `x-goog-api-key`.
 */
const HEADER_VALUE =
  /\b((?:proxy-)?authorization|x-goog-api-key|x-api-key|api[-_]?key)(\\*["']?\s*[:=]\s*)(\\*["'][^"'\\]*|(?:(?:bearer|basic)\s+)?[^\s"'\\,;&}]+)/gi;

/** Types of the AI SDK's stream parts that carry an error's text. */
const ERROR_PARTS = new Set(['error', 'tool-error']);

/**
 * Keeps the engine's secrets out of what leaves the runtime from a model call: a model server (or a proxy in
 * front of it) may echo the request, Authorization header included, in an error body, an SSE error event or a
 * chunk the SDK cannot parse (and quotes). The key values the engine was configured with are replaced wherever
 * they occur in what the model sent (text, reasoning, tool input, errors); an error's text also loses any
 * credential in header form (whatever key it is). Not caught: a key the server splits across two deltas or
 * encodes.
 */
export class Redactor {
  private readonly secrets: string[];

  constructor(secrets: readonly string[]) {
    // The longest first, so a key that contains another is replaced whole.
    this.secrets = [...new Set(secrets)]
      .filter((s) => s.length >= MIN_SECRET_CHARS)
      .sort((a, b) => b.length - a.length);
  }

  /** Text from the model server: each secret's value replaced wherever it occurs. */
  text(s: string): string {
    let out = s;
    for (const secret of this.secrets) if (out.includes(secret)) out = out.replaceAll(secret, REDACTED);
    return out;
  }

  /** An error's text: the secrets' values, then every credential in header form. */
  error(s: string): string {
    return this.text(s)
      .replace(HEADER_VALUE, (_m, name: string, sep: string, value: string) => {
        const quote = /^\\*["']/.exec(value)?.[0] ?? '';
        return `${name}${sep}${quote}${REDACTED}`;
      })
      .replace(BEARER, `Bearer ${REDACTED}`);
  }

  /** A stream part as the runtime emits it (see safePart): every string redacted, error text as errors. */
  part(part: JsonObject): JsonObject {
    const isError = typeof part.type === 'string' && ERROR_PARTS.has(part.type);
    if (!isError && this.secrets.length === 0) return part;
    return this.json(part, isError ? (s) => this.error(s) : (s) => this.text(s)) as JsonObject;
  }

  /** Every string of a JSON value (object keys included) through `f`; the value itself when nothing changed. */
  json(v: JsonValue, f: (s: string) => string = (s) => this.text(s)): JsonValue {
    if (typeof v === 'string') return f(v);
    if (Array.isArray(v)) {
      let changed = false;
      const out = v.map((x) => {
        const y = this.json(x, f);
        if (y !== x) changed = true;
        return y;
      });
      return changed ? out : v;
    }
    if (v === null || typeof v !== 'object') return v;
    let changed = false;
    const out: JsonObject = {};
    for (const [k, x] of Object.entries(v)) {
      const key = f(k);
      const y = this.json(x as JsonValue, f);
      if (key !== k || y !== x) changed = true;
      out[key] = y;
    }
    return changed ? out : v;
  }
}
