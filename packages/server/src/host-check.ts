import { HttpError } from './errors.js';

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The host part of a Host header, lower-cased, without the port: `[::1]:7433` → `[::1]`. */
export function hostName(header: string): string {
  const h = header.trim().toLowerCase();
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    return end === -1 ? h : h.slice(0, end + 1);
  }
  const colon = h.indexOf(':');
  return colon === -1 ? h : h.slice(0, colon);
}

/**
 * Loopback-only mode (no tokens) trusts whoever can reach the socket, which a DNS-rebinding page can do
 * through the victim's browser: its requests arrive from 127.0.0.1 but carry `Host: attacker.example`.
 * Only loopback names (and the configured `allowedHosts`) are accepted, so such a page gets 403.
 */
export function hostChecker(allowedHosts: readonly string[]): (header: string | undefined) => void {
  const allowed = new Set([...LOOPBACK_NAMES, ...allowedHosts.map((h) => hostName(h))]);
  return (header) => {
    if (header !== undefined && allowed.has(hostName(header))) return;
    throw new HttpError(
      'forbidden',
      `Host ${JSON.stringify(header ?? '')} is not allowed without tokens: use localhost, 127.0.0.1 or [::1], or configure allowedHosts`,
      'headers.host',
    );
  };
}
