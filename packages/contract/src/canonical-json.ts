import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import canonicalize from 'canonicalize';
import type { SessionState } from './session-state.js';

/**
 * RFC 8785 (JSON Canonicalization Scheme): sorted keys by UTF-16 code units, ECMAScript number formatting,
 * minimal string escapes, no whitespace. Throws on what JSON cannot hold (NaN, Infinity, lone surrogates,
 * cycles), because a fingerprint of a value that does not round-trip would prove nothing.
 */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('value has no JSON representation');
  return text;
}

/** Lowercase hex sha256 of the UTF-8 bytes of `text`. */
export function sha256Hex(text: string): string {
  return bytesToHex(sha256(utf8ToBytes(text)));
}

/**
 * The fingerprint two runtimes compare to prove they hold a byte-identical SessionState: sha256 hex of the
 * state's canonical JSON.
 */
export function fingerprintSessionState(state: SessionState): string {
  return sha256Hex(canonicalJson(state));
}
