import { HttpError, quote } from './errors.js';

/** Deepest nesting a request body may have; JSON documents of the API are a few levels deep. */
export const DEFAULT_MAX_DEPTH = 64;

/** The name of a member of `base`: `base.key`, `base[0]`, or `base["a b"]` for a key that is no plain name. */
export const fieldOf = (base: string, key: string | number): string =>
  typeof key === 'number'
    ? `${base}[${key}]`
    : /^[A-Za-z0-9_-]+$/.test(key)
      ? `${base}.${key}`
      : `${base}[${quote(key)}]`;

/** A lone UTF-16 surrogate (`"\ud800"`) has no UTF-8 form: text columns would store U+FFFD instead. */
const LONE_SURROGATE = /\p{Surrogate}/u; // in `u` mode a valid pair is one code point, not a surrogate
const loneSurrogate = (field: string): HttpError =>
  new HttpError('invalid_request', `${field} must not contain a lone UTF-16 surrogate`, field);

/**
 * Refuses, before validation and long before a database sees them, the inputs no route can store as sent:
 * a number beyond a double's range, a lone UTF-16 surrogate (no UTF-8 form), a NUL character (PostgreSQL text and jsonb cannot hold U+0000, so it used to surface as a 500 — or, in a
 * sync, as an unhandled rejection) and nesting deeper than `maxDepth` (recursive serializers, hashing and
 * canonical JSON overflow the stack on a 10 KB body 5,000 levels deep). The walk is iterative, so the guard
 * itself cannot overflow. Throws a 400 naming the first offending field, e.g. `body.changes[0].key`.
 */
export function guardInput(
  part: string,
  value: unknown,
  maxDepth = DEFAULT_MAX_DEPTH,
  /** false: only numbers and nesting are checked, not text (a route that checks the text it keeps itself). */
  text = true,
): void {
  const stack: { value: unknown; field: string; depth: number }[] = [{ value, field: part, depth: 0 }];
  while (stack.length > 0) {
    const { value: v, field, depth } = stack.pop() as (typeof stack)[number];
    if (typeof v === 'string') {
      if (!text) continue;
      if (v.includes('\u0000'))
        throw new HttpError('invalid_request', `${field} must not contain a NUL character (U+0000)`, field);
      if (LONE_SURROGATE.test(v)) throw loneSurrogate(field);
      continue;
    }
    if (typeof v === 'number') {
      // JSON.parse turns a literal beyond a double's range (1e400) into ±Infinity, which every serializer
      // then writes as null: the value would be changed, not stored.
      if (!Number.isFinite(v))
        throw new HttpError('invalid_request', `${field} is a number out of range`, field);
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (depth >= maxDepth)
      throw new HttpError('invalid_request', `${field} is nested deeper than ${maxDepth} levels`, field);
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--)
        stack.push({ value: v[i], field: fieldOf(field, i), depth: depth + 1 });
      continue;
    }
    const keys = Object.keys(v);
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i] as string;
      const child = fieldOf(field, key);
      if (text && key.includes('\u0000'))
        throw new HttpError(
          'invalid_request',
          `${child}: a key must not contain a NUL character (U+0000)`,
          child,
        );
      if (text && LONE_SURROGATE.test(key)) throw loneSurrogate(child);
      stack.push({ value: (v as Record<string, unknown>)[key], field: child, depth: depth + 1 });
    }
  }
}

/**
 * Route config (`config: { [GUARDS_OWN_TEXT]: true }`) of a route whose body carries text the server itself
 * produced and the route ignores: the protocol routes, where a client posts back the whole conversation it
 * was streamed (a model's answer may hold a NUL or a lone surrogate, and refusing it would end the chat for
 * good). Their body is checked for numbers and nesting only; the route guards the text it keeps.
 */
export const GUARDS_OWN_TEXT = 'agentlaneGuardsOwnText';
