import { HttpError } from './errors.js';

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * A Host header as RFC 9110 has it: a name, an IPv4 address or a bracketed IPv6 address, then an optional
 * decimal port. Anything else (userinfo `127.0.0.1:80@evil`, a path, spaces inside) matches no host.
 */
const HOST_HEADER = /^(\[[0-9a-f:.]+\]|[a-z0-9._~!$&'()*+,;=%-]+)(?::\d{0,5})?$/;

/** The host part of a Host header, lower-cased, without the port (`[::1]:7433` → `[::1]`); '' when malformed. */
export function hostName(header: string): string {
  return HOST_HEADER.exec(header.trim().toLowerCase())?.[1] ?? '';
}

/**
 * Loopback-only mode (no tokens) trusts whoever can reach the socket, which a DNS-rebinding page can do
 * through the victim's browser: its requests arrive from 127.0.0.1 but carry `Host: attacker.example`.
 * Only loopback names (and the configured `allowedHosts`) are accepted, so such a page gets 403.
 */
export function hostChecker(allowedHosts: readonly string[]): (header: string | undefined) => void {
  const allowed = new Set([
    ...LOOPBACK_NAMES,
    ...allowedHosts.map((h) => hostName(h)).filter((h) => h !== ''),
  ]);
  return (header) => {
    if (header !== undefined && allowed.has(hostName(header))) return;
    throw new HttpError(
      'forbidden',
      `Host ${JSON.stringify(header ?? '')} is not allowed without tokens: use localhost, 127.0.0.1 or [::1], or configure allowedHosts`,
      'headers.host',
    );
  };
}
