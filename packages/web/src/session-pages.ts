import type { SessionRecord } from '@agentlane/client';

/** Rows of the first page: the only page the sidebar reads again on every poll. */
export const FIRST_PAGE = 50;
/** Rows of each older page, read when the user asks for more. */
export const MORE_PAGE = 100;

/**
 * The thread list as loaded so far: the first page (read again on every poll) and the older pages the user
 * asked for (read once). The server lists threads newest first by (createdAt, id), a cursor is a position in
 * that order, so an older page stays valid while new threads arrive on top.
 */
export interface SessionPages {
  sessions: SessionRecord[];
  /** Where the next older page starts; null when the list is complete. */
  nextCursor: string | null;
  /** True once the user loaded an older page (the first page's own cursor no longer says where the list ends). */
  extended: boolean;
}

export const emptyPages: SessionPages = { sessions: [], nextCursor: null, extended: false };

/** Newest first, as the server orders them: is `a` before `b`? */
function before(a: SessionRecord, b: SessionRecord): boolean {
  return a.createdAt > b.createdAt || (a.createdAt === b.createdAt && a.id > b.id);
}

/**
 * A fresh first page merged into what is loaded: its rows replace the ones in its range (a thread deleted
 * there disappears), the older rows already loaded stay, including a row that new threads pushed out of the
 * first page since.
 */
export function mergeFirstPage(
  loaded: SessionPages,
  page: { sessions: SessionRecord[]; nextCursor: string | null },
): SessionPages {
  if (!loaded.extended || page.nextCursor === null) return { ...page, extended: false };
  const fresh = new Set(page.sessions.map((s) => s.id));
  const last = page.sessions[page.sessions.length - 1];
  const older = loaded.sessions.filter((s) => !fresh.has(s.id) && (!last || before(last, s)));
  return { sessions: [...page.sessions, ...older], nextCursor: loaded.nextCursor, extended: true };
}

/** An older page appended (rows already listed are not listed twice). */
export function appendPage(
  loaded: SessionPages,
  page: { sessions: SessionRecord[]; nextCursor: string | null },
): SessionPages {
  const listed = new Set(loaded.sessions.map((s) => s.id));
  return {
    sessions: [...loaded.sessions, ...page.sessions.filter((s) => !listed.has(s.id))],
    nextCursor: page.nextCursor,
    extended: true,
  };
}

/** The open thread is always listed: when its row is not loaded (an older thread, a search that misses it), first. */
export function withOpenThread(sessions: SessionRecord[], open: SessionRecord | undefined): SessionRecord[] {
  if (!open || sessions.some((s) => s.id === open.id)) return sessions;
  return [open, ...sessions];
}

type ListPage = (query: { limit: number; cursor?: string }) => Promise<{
  sessions: SessionRecord[];
  nextCursor: string | null;
}>;

/** The largest page the server serves. */
const MAX_PAGE = 200;

/**
 * Every loaded page read again (now and then, and when asked to refresh): the older rows' activity moves on
 * too, and a thread deleted below the first page is only seen gone this way. Reads from the top until it has
 * passed the last loaded row, so the list keeps its length (plus what arrived on top).
 */
export async function rereadLoaded(loaded: SessionPages, list: ListPage): Promise<SessionPages> {
  const last = loaded.sessions[loaded.sessions.length - 1];
  if (!loaded.extended || !last) return mergeFirstPage(loaded, await list({ limit: FIRST_PAGE }));
  const sessions: SessionRecord[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await list({ limit: MAX_PAGE, ...(cursor ? { cursor } : {}) });
    sessions.push(...page.sessions);
    const end = page.sessions[page.sessions.length - 1];
    if (page.nextCursor === null || !end || !before(end, last))
      return appendPage({ sessions: [], nextCursor: null, extended: true }, { ...page, sessions });
    cursor = page.nextCursor;
  }
}
