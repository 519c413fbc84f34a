import { type ChildSessionState, entryOf, type OpenCodeState } from './state.js';

// Which native session a frame belongs to, read off the state's session tree (no events; isOurSession
// adopts the first session it sees as the root when none is known yet).

/** undefined for the root session, the child path for a child, null for a session outside this run. */
export function namespaceOf(state: OpenCodeState, sessionId: string | undefined): string[] | undefined {
  if (!sessionId || sessionId === state.rootSessionId) return undefined;
  const path: string[] = [];
  let current: string | undefined = sessionId;
  while (current && current !== state.rootSessionId) {
    const child: ChildSessionState | undefined = entryOf(state, 'children', current);
    if (!child || path.length > 32) return undefined;
    path.unshift(current);
    current = child.parentSessionId;
  }
  return path;
}

/** Whether a frame of this session belongs to the run: the root, a known child, or (before any root) anything. */
export function isOurSession(state: OpenCodeState, sessionId: string | undefined): boolean {
  if (!sessionId) return true;
  if (state.rootSessionId === null) {
    state.rootSessionId = sessionId;
    return true;
  }
  return sessionId === state.rootSessionId || entryOf(state, 'children', sessionId) !== undefined;
}
