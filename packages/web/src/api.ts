import { AgentlaneClient, apiErrorFrom } from '@agentlane/client';

/** Same-origin by default; `?api=http://host:port` points the page at another server (dev, tests). */
function serverUrl(): string {
  const param = new URLSearchParams(window.location.search).get('api');
  return param ?? '';
}

function token(): string | undefined {
  return window.localStorage.getItem('agentlane.token') ?? undefined;
}

export const client = new AgentlaneClient({ url: serverUrl(), token: token() });

/**
 * GET of a route the typed client has no method for yet (the inspectors' audit and checkpoint reads), with
 * the same base URL, token and error shape.
 */
export async function getJson<T>(path: string, signal?: AbortSignal): Promise<T> {
  const bearer = token();
  const response = await fetch(`${client.baseUrl}${path}`, {
    headers: { accept: 'application/json', ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
    ...(signal ? { signal } : {}),
  });
  if (!response.ok) throw await apiErrorFrom(response);
  return (await response.json()) as T;
}
