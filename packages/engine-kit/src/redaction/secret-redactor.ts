import type { JsonObject, JsonValue } from '@agentlane/contract';
import { isCredentialParam } from '@agentlane/contract/safe-text';
import { REDACTED, StreamRedactor, scanSecrets } from './stream-redactor.js';

export { REDACTED };

/** Secret values shorter than this are not looked for: a placeholder key like `k` would hit every word. */
export const MIN_SECRET_CHARS = 8;

/**
 * A bearer token wherever it is: `Bearer <token>`. The token has at least 8 characters and a digit or one of
 * `-._` (as every real one does), so prose ("the bearer instrument") is left alone.
 */
export const BEARER = /\bBearer\s+(?=[A-Za-z~+/]*[0-9\-._])[A-Za-z0-9\-._~+/]{8,}=*/gi;

/** In an error's text any `Bearer <token>` is a credential, however short: errors are not prose. */
export const ANY_BEARER = /\bBearer\s+[A-Za-z0-9\-._~+/]+=*/gi;

/**
 * The value of a credential header or field, however it is written: `authorization: Bearer …`,
 * `"authorization":"…"`, `\"x-api-key\":\"…\"` (JSON inside a JSON string), `api-key=…`, `x-goog-api-key`.
 * HeaderValueStream reads the same in pieces (BearerStream BEARER and ANY_BEARER), and SplitFieldRedactor reads
 * them across frames: a change here is made there too, and the stream tests compare the two.
 */
export const HEADER_VALUE =
  /\b((?:proxy-)?authorization|x-goog-api-key|x-api-key|api[-_]?key)(\\*["']?\s*[:=]\s*)(\\*["'][^"'\\]*|(?:(?:bearer|basic)\s+)?[^\s"'\\,;&}]+)/gi;

/** What jsonFields() gives each string value: its text redacted, read where it is (`path`). */
export type FieldText = (s: string, path: readonly (string | number)[]) => string;

/** Object keys whose string value is a credential, as parsed headers or options carry them. */
const CREDENTIAL_KEY = /^(?:(?:proxy-)?authorization|x-goog-api-key|x-api-key|api[-_]?key)$/i;

/** Cheap pre-check: a string none of these occur in cannot hold a header-shaped credential. */
export const HEADER_HINT = /bearer|authorization|api[-_]?key/i;

/**
 * The provider key variables the adapters' discovery reads (ANTHROPIC_API_KEY, …): their values are
 * secrets whether or not an engine entry names them.
 */
export const PROVIDER_KEY_VARIABLES = [
  'ANTHROPIC_API_KEY',
  'OPENAI_API_KEY',
  'GEMINI_API_KEY',
  'GOOGLE_GENERATIVE_AI_API_KEY',
] as const;

/** Variable names whose values are credentials: `*_API_KEY`, `*_TOKEN(S)`, `*_SECRET`, `*_PASSWORD`. */
export const SECRET_VARIABLE = /(?:^|_)(?:API_?KEY|TOKENS?|SECRET|PASSWORD|ACCESS_KEY)$/i;

/**
 * Keeps the secrets the server knows (engine API keys, server tokens) out of what an engine's output turns
 * into: stored native frames (JSON and raw bytes), and through them events, audit rows, SSE and the raw
 * sidecar; run errors; discovery's reasons and doctor's findings. Every occurrence of a known secret value is
 * replaced, and every credential in header form (`Authorization: Bearer …`, `x-api-key: …`, `api_key=…`)
 * loses its value whatever key it is. A key or a header split across two frames is caught where the pieces are
 * joined (stream() for deltas, text() over the joined text), and a header's value is kept out of the stored
 * frames too (SplitFieldRedactor); not caught: a key an engine encodes.
 */
export class SecretRedactor {
  private readonly secrets: string[];
  private readonly headers: boolean;
  private readonly errorText: boolean;
  private readonly encoder = new TextEncoder();
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });

  /**
   * `headers: false` replaces only the known values (a model's text, where `api_key=` may be prose).
   * `errorText: true` is for an error's text: every `Bearer <token>` goes, and a credential header loses its
   * scheme too (`authorization: [REDACTED]`).
   */
  constructor(
    secrets: Iterable<string | undefined | null> = [],
    options: { headers?: boolean; errorText?: boolean } = {},
  ) {
    // The longest first, so a key that contains another is replaced whole.
    this.secrets = [...new Set([...secrets].filter((s): s is string => typeof s === 'string'))]
      .map((s) => s.trim())
      .filter((s) => s.length >= MIN_SECRET_CHARS)
      .sort((a, b) => b.length - a.length);
    this.headers = options.headers ?? true;
    this.errorText = options.errorText ?? false;
  }

  /** How many secret values it looks for. */
  get size(): number {
    return this.secrets.length;
  }

  /** Whether it can change anything at all. */
  get active(): boolean {
    return this.headers || this.secrets.length > 0;
  }

  /**
   * Text with every secret value, and every header-shaped credential, replaced by [REDACTED]. The values are
   * found by one left-to-right scan (scanSecrets: where two overlap, the leftmost, then the longest, goes), so
   * that stream() gives the same for the text in pieces.
   */
  text(s: string): string {
    const out = scanSecrets(s, this.secrets, true).out;
    if (!this.headers || !HEADER_HINT.test(out)) return out;
    return out
      .replace(HEADER_VALUE, (m, name: string, sep: string, value: string) => {
        if (value.endsWith(REDACTED)) return m;
        const quote = /^\\*["']/.exec(value)?.[0] ?? '';
        const scheme = this.errorText ? '' : (/^(?:bearer|basic)\s+/i.exec(value)?.[0] ?? '');
        return `${name}${sep}${quote}${scheme}${REDACTED}`;
      })
      .replace(this.errorText ? ANY_BEARER : BEARER, `Bearer ${REDACTED}`);
  }

  /**
   * A redactor for one text that arrives in pieces (see StreamRedactor), with this one's options: what it emits
   * for the pieces is what text() gives for the whole, header-shaped credentials split across pieces included
   * (but for a key's first characters a cut lets out, MIN_HELD).
   */
  stream(): StreamRedactor {
    return new StreamRedactor(this.secrets, { headers: this.headers, errorText: this.errorText });
  }

  /** Whether header-shaped credentials are replaced, and as an error's text (the constructor's options). */
  get options(): { headers: boolean; errorText: boolean } {
    return { headers: this.headers, errorText: this.errorText };
  }

  /**
   * Every string of a JSON value (object keys included) through text(); the value itself when nothing
   * changed. Recursive: call it on values whose depth is bounded (RunPipeline checks frames first).
   */
  json(v: JsonValue): JsonValue {
    return this.walk(v, null, []);
  }

  /**
   * json(), but each string value (not an object key) is given to `strings` with its place in the value (the
   * keys and indexes from the top, a list `strings` may not keep) instead of text(); a credential key's value
   * is replaced all the same.
   */
  jsonFields(v: JsonValue, strings: FieldText): JsonValue {
    return this.walk(v, strings, []);
  }

  private walk(v: JsonValue, strings: FieldText | null, path: (string | number)[]): JsonValue {
    if (typeof v === 'string') return strings ? strings(v, path) : this.text(v);
    if (Array.isArray(v)) {
      let changed = false;
      const out = v.map((x, i) => {
        if (strings) path.push(i);
        const y = this.walk(x, strings, path);
        if (strings) path.pop();
        if (y !== x) changed = true;
        return y;
      });
      return changed ? out : v;
    }
    if (v === null || typeof v !== 'object') return v;
    let changed = false;
    const out: JsonObject = {};
    for (const [k, x] of Object.entries(v)) {
      const key = this.text(k);
      if (strings) path.push(k);
      const y =
        this.headers && typeof x === 'string' && x !== '' && x !== REDACTED && CREDENTIAL_KEY.test(k)
          ? REDACTED
          : this.walk(x as JsonValue, strings, path);
      if (strings) path.pop();
      if (key !== k || y !== x) changed = true;
      out[key] = y;
    }
    return changed ? out : v;
  }

  /**
   * Raw wire bytes: redacted as UTF-8 text; the same bytes when nothing changed (or when they are not UTF-8,
   * then only as long as no secret's bytes occur in them; otherwise they are dropped as unreadable).
   */
  raw(raw: string | Uint8Array): string | Uint8Array | undefined {
    if (typeof raw === 'string') return this.text(raw);
    let text: string;
    try {
      text = this.decoder.decode(raw);
    } catch {
      // Not UTF-8: look for each secret's bytes; a hit drops the raw copy (the parsed frame stays).
      const bytes = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
      return this.secrets.some((s) => bytes.includes(s)) ? undefined : raw;
    }
    const out = this.text(text);
    return out === text ? raw : this.encoder.encode(out);
  }
}

/**
 * The secret values in an environment: the provider key variables, every variable named in `names` (an
 * engine entry's `apiKeyEnv`, the variables an engine needs), and every variable whose name says it holds a
 * credential (SECRET_VARIABLE).
 */
export function secretsFromEnv(env: NodeJS.ProcessEnv, names: Iterable<string> = []): string[] {
  const out: string[] = [];
  for (const name of [...PROVIDER_KEY_VARIABLES, ...names]) {
    const value = env[name];
    if (value) out.push(value);
  }
  for (const [name, value] of Object.entries(env)) {
    if (!value) continue;
    if (SECRET_VARIABLE.test(name)) out.push(value);
    else out.push(...urlSecretsOf(value));
  }
  return out;
}

/**
 * The credentials a URL carries: its password (as written and decoded) and credential-named query values.
 * `AGENTLANE_DB=postgres://user:pw@host/db` is named like no credential, yet a tool that printed it stored
 * the password in events and checkpoints (probe). Anything that is not such a URL gives nothing.
 */
export function urlSecretsOf(value: string): string[] {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return [];
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return [];
  }
  const out: string[] = [];
  if (url.password) {
    out.push(url.password);
    try {
      out.push(decodeURIComponent(url.password));
    } catch {
      // A malformed escape: the password as written is what appears.
    }
  }
  for (const [key, v] of url.searchParams) if (v && isCredentialParam(key)) out.push(v);
  return out;
}
