/**
 * JSON-RPC ids as map keys and approval ids. An id is a number or a string, and `1` and `"1"` are two
 * different ids, as are `1.5` and `"1_5"`: a key that mixed them up would let one request's answer
 * settle another's (two permission requests sharing one approval). So the key is injective:
 *
 * - a non-negative integer is its digits (`7`), and a string of letters, digits, `_` and `-` that is not all
 *   digits is itself (`call_1`): the ids agents actually send keep the keys and approval ids they always had;
 * - anything else is `~n` (a number) or `~s` (a string) followed by its text with every other character
 *   written as `.` and four hex digits of its UTF-16 code unit (`1.5` → `~n1.002e5`).
 *
 * The three forms cannot meet (only the last has `~`; the first is all digits, the second not), `.` is
 * always escaped, and the escape has a fixed width, so no two ids share a key. Keys stay URL-safe:
 * approval ids are path segments of the answer route.
 */

const PLAIN = /^[A-Za-z0-9_-]+$/;
const DIGITS = /^[0-9]+$/;

function escaped(text: string): string {
  let out = '';
  for (const ch of text) {
    if (PLAIN.test(ch)) out += ch;
    else for (let i = 0; i < ch.length; i++) out += `.${ch.charCodeAt(i).toString(16).padStart(4, '0')}`;
  }
  return out;
}

export function rpcKey(id: string | number): string {
  if (typeof id === 'number') {
    const text = String(id);
    return DIGITS.test(text) ? text : `~n${escaped(text)}`;
  }
  return PLAIN.test(id) && !DIGITS.test(id) ? id : `~s${escaped(id)}`;
}

/** The id of a JSON-RPC message, with its type (null and other values are no usable id). */
export function rpcIdOf(value: unknown): string | number | undefined {
  return typeof value === 'number' || typeof value === 'string' ? value : undefined;
}
