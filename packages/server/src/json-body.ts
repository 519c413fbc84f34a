import { isUtf8 } from 'node:buffer';
import { errorCodes, type FastifyInstance, type FastifyRequest } from 'fastify';
import { HttpError, quote } from './errors.js';
import { fieldOf } from './input-guard.js';

// JSON.parse keeps the last of two equal keys and makes `__proto__` an own key: a body read that way can
// mean something else to the next parser (a proxy, a log, a client that keeps the first key), and an own
// `__proto__` or `constructor.prototype` becomes a prototype once a spread or merge copies it. Fastify's
// own parser refuses the latter two with a message that blames the JSON syntax, and says nothing of the
// former. This parser refuses all three with a 400 naming the key.

/** An object or array of the body that is still open, as the scan meets it. */
interface Open {
  object: boolean;
  /** The last key read (an object): where a value that opens now sits. */
  key: string | undefined;
  /** Every key read, once there are two: most objects of a body have one or none, and need no set. */
  keys: Set<string> | undefined;
  /** Elements before the current one (an array). */
  index: number;
  /** The next string is a key (an object after `{` or `,`). */
  expectKey: boolean;
}

/** The index of the quote that ends the string whose opening quote is at `start`. */
function stringEnd(text: string, start: number): number {
  let end = text.indexOf('"', start + 1);
  // A quote after an odd number of backslashes is part of the string.
  for (;;) {
    let slashes = 0;
    while (text.charCodeAt(end - 1 - slashes) === 0x5c) slashes++;
    if (slashes % 2 === 0) return end;
    end = text.indexOf('"', end + 1);
  }
}

/** The 400 for a key of the innermost open object, naming it (`body.changes[0].key`): built only here. */
function refuseKey(stack: readonly Open[], key: string, why: string): never {
  let field = 'body';
  for (let depth = 0; depth < stack.length - 1; depth++) {
    const open = stack[depth] as Open;
    field = fieldOf(field, open.object ? (open.key as string) : open.index);
  }
  field = fieldOf(field, key);
  throw new HttpError('invalid_request', `${field}: ${why}`, field);
}

function readKey(stack: readonly Open[], open: Open, key: string): void {
  if (key === '__proto__') refuseKey(stack, key, 'the key "__proto__" is not allowed');
  const parent = stack[stack.length - 2];
  if (key === 'prototype' && parent?.object && parent.key === 'constructor')
    refuseKey(stack, key, 'the key "prototype" is not allowed inside "constructor"');
  if (open.key !== undefined) {
    open.keys ??= new Set([open.key]);
    if (open.keys.has(key)) refuseKey(stack, key, `the key ${quote(key)} appears twice in one object`);
    open.keys.add(key);
  }
  open.key = key;
  open.expectKey = false;
}

/**
 * Refuses duplicate keys, `__proto__` keys and `constructor.prototype` in `text`, which JSON.parse has
 * accepted: one pass, each character read once, each key decoded once; the open objects live on an
 * explicit stack, so deep nesting cannot overflow the call stack.
 */
export function assertPlainKeys(text: string): void {
  const stack: Open[] = [];
  let top: Open | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      const end = stringEnd(text, i);
      if (top?.expectKey) {
        const raw = text.slice(i + 1, end);
        readKey(stack, top, raw.includes('\\') ? (JSON.parse(text.slice(i, end + 1)) as string) : raw);
      }
      i = end;
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      const object = c === 0x7b;
      top = { object, key: undefined, keys: undefined, index: 0, expectKey: object };
      stack.push(top);
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      stack.pop();
      top = stack[stack.length - 1];
    } else if (c === 0x2c /* , */ && top) {
      if (top.object) top.expectKey = true;
      else top.index++;
    }
  }
}

/** A JSON request body as Fastify's parser reads it (a leading BOM dropped), with the checks above. */
export function parseJsonBody(body: string): unknown {
  if (body.length === 0) throw new errorCodes.FST_ERR_CTP_EMPTY_JSON_BODY();
  const text = body.charCodeAt(0) === 0xfeff ? body.slice(1) : body;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new errorCodes.FST_ERR_CTP_INVALID_JSON_BODY();
  }
  if (value !== null && typeof value === 'object') assertPlainKeys(text);
  return value;
}

/**
 * Replaces Fastify's JSON parser (same media type, same body limit) with parseJsonBody, and drops its
 * text/plain one: every body of the API is JSON, and a JSON text sent as text/plain reached validation as a
 * string (400 "body: must be object") instead of the 415 naming the Content-Type that any other type gets.
 */
export function useJsonBodyParser(app: FastifyInstance): void {
  // As bytes: Fastify's string reading turns bytes that are not UTF-8 into U+FFFD, which a body with
  // Content-Length then failed by its length but a chunked body passed, stored with the replacements.
  const parser = async (_request: FastifyRequest, body: Buffer) => {
    if (!isUtf8(body)) throw new HttpError('invalid_request', 'the request body is not valid UTF-8', 'body');
    return parseJsonBody(body.toString('utf8'));
  };
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, parser);
  app.removeContentTypeParser('text/plain');
}
