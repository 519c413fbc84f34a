/**
 * Text from a client or another process made safe to show in a message, a log line or a terminal. Its own
 * entry point (`@agentlane/contract/safe-text`) so that a command-line start does not load the schemas.
 */

/**
 * Characters a message must not carry as they are: C0 and C1 controls (Cc: a terminal or log viewer acts on
 * them; an ESC sequence recolours or rewrites the screen), line and paragraph separators, and the bidi marks,
 * embeddings, overrides and isolates (Bidi_Control: U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069)
 * that make a quoted id display as something else (after U+202E, `exe.txt` shows as `txt.exe`).
 */
const UNSAFE_TEXT = /[\p{Cc}\p{Bidi_Control}\u2028\u2029]/gu;

/** `text` with every unsafe character written as a `\uXXXX` escape. */
export const escapeUnsafe = (text: string): string =>
  text.replace(UNSAFE_TEXT, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** Input quoted for a message: JSON string syntax, unsafe characters escaped. */
export const quote = (value: string): string => escapeUnsafe(JSON.stringify(value));

/**
 * Names of URL query parameters whose value is a credential (`?password=…` in a libpq URL, `?token=…` or
 * `?api_key=…` in an endpoint). One list for everything that masks or collects them.
 */
const CREDENTIAL_PARAM_NAMES = 'password|passwd|pwd|sslpassword|secret|token|access_token|api[-_]?key|key';

/** Whether a query parameter's name says its value is a credential. */
export const isCredentialParam = (name: string): boolean => CREDENTIAL_PARAM.test(name);
const CREDENTIAL_PARAM = new RegExp(`^(?:${CREDENTIAL_PARAM_NAMES})$`, 'i');

/** `text` with the value of every credential-named query parameter in it replaced by `***`. */
export const maskCredentialQuery = (text: string): string => text.replace(CREDENTIAL_QUERY, '$1***');
const CREDENTIAL_QUERY = new RegExp(`([?&](?:${CREDENTIAL_PARAM_NAMES})=)[^&#\\s]*`, 'gi');
