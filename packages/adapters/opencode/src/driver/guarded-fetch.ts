/** Redirects followed within the origin before giving up. */
const MAX_REDIRECTS = 5;

/** OpenCode answered with a redirect to another origin: the request (a prompt, a reply) was not sent there. */
export class CrossOriginRedirect extends Error {
  override name = 'CrossOriginRedirect';
}

/**
 * A fetch for the OpenCode client that never leaves the configured origin: redirects are read by hand
 * (`redirect: 'manual'`), followed within the origin, and refused with an error when they point elsewhere
 * (the SDK follows redirects by default, so a prompt could be posted to any host the server names).
 */
export function originBoundFetch(baseUrl: string, inner: typeof fetch = fetch): typeof fetch {
  const origin = new URL(baseUrl).origin;
  return async (input, init) => {
    let request = new Request(input, init);
    for (let hop = 0; ; hop++) {
      const retry = request.clone();
      const response = await inner(request, { redirect: 'manual' });
      const location = response.headers.get('location');
      if (response.status < 300 || response.status > 399 || location === null) return response;
      const target = new URL(location, request.url);
      if (target.origin !== origin) {
        await response.body?.cancel().catch(() => undefined);
        throw new CrossOriginRedirect(
          `OpenCode redirected ${request.method} ${new URL(request.url).pathname} to another origin (${target.origin}): refused, requests stay at ${origin}`,
        );
      }
      if (hop >= MAX_REDIRECTS) throw new Error(`OpenCode redirected more than ${MAX_REDIRECTS} times`);
      await response.body?.cancel().catch(() => undefined);
      const keepsBody = response.status === 307 || response.status === 308;
      request = keepsBody
        ? new Request(target, retry)
        : new Request(target, {
            method: retry.method === 'HEAD' ? 'HEAD' : 'GET',
            headers: retry.headers,
            signal: retry.signal,
          });
    }
  };
}
