import { useEffect, useState } from 'react';

export type Route = { page: 'threads' } | { page: 'thread'; threadId: string; timelineKey: string };

/** Hash routes: `#/` lists threads, `#/t/<id>` opens one, `#/t/<id>/c/<child path>` opens a child session. */
export function parseRoute(hash: string): Route {
  const match = /^#\/t\/([^/]+)(?:\/c\/(.+))?$/.exec(hash);
  if (!match) return { page: 'threads' };
  return {
    page: 'thread',
    threadId: decodeURIComponent(match[1]!),
    timelineKey: match[2] ? decodeURIComponent(match[2]) : '',
  };
}

export function threadHref(threadId: string, timelineKey = ''): string {
  return `#/t/${encodeURIComponent(threadId)}${timelineKey ? `/c/${encodeURIComponent(timelineKey)}` : ''}`;
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseRoute(window.location.hash));
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}
