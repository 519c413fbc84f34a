/** The header a client names itself in (the server's stream budget for token-less local clients, per id). */
export const CLIENT_ID_HEADER = 'x-agentlane-client';

/** What the server accepts as a client id (anything else is a 400 naming the header). */
const CLIENT_ID = /^[A-Za-z0-9_.:-]{1,128}$/;

/**
 * The id a client sends with every request: the one given, checked here so a bad one fails at construction
 * rather than as a 400 on the first stream; else a fresh random one. Without it every token-less client on the
 * machine shares one budget of streams (one browser tab could use up what another needs).
 */
export function clientIdOf(given: string | undefined): string {
  if (given === undefined) return `agentlane-${randomHex()}`;
  if (!CLIENT_ID.test(given))
    throw new TypeError('clientId must be 1 to 128 characters of A-Z, a-z, 0-9, "_", ".", ":" or "-"');
  return given;
}

/** 128 random bits as hex: crypto.getRandomValues exists in Node 20 and in every browser, secure context or not. */
function randomHex(): string {
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}
