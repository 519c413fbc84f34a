import { AgentlaneClient } from '@agentlane/client';

/** Same-origin by default; `?api=http://host:port` points the page at another server (dev, tests). */
function serverUrl(): string {
  const param = new URLSearchParams(window.location.search).get('api');
  return param ?? '';
}

function token(): string | undefined {
  return window.localStorage.getItem('agentlane.token') ?? undefined;
}

export const client = new AgentlaneClient({ url: serverUrl(), token: token() });
