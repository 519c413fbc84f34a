import type { ThreadRecord } from '@agentlane/store';
import { assertThreadAccess, canAccessThread, type Principal } from '../auth.js';
import type { ServerContext } from '../context.js';
import { notFound } from '../errors.js';

// How `/sessions/:id` routes find their session: a session is a thread (one harness session per thread);
// one never created and one deleted are the same 404 naming the path's id.

type Store = ServerContext['store'];

export async function loadSessionThread(store: Store, id: string): Promise<ThreadRecord> {
  const thread = await store.getThread(id);
  if (!thread) throw notFound('session', id, 'params.id');
  return thread;
}

/**
 * For the routes that read rows keyed by a session id (the audit ledger, checkpoints): 404 unless `id` is a thread or a child session of one. A sub-agent writes its ledger rows
 * and checkpoints under its own id, `<thread>:…` (`<thread>:task:<toolCallId>`), and has no thread row of
 * its own, so it exists while the thread it starts with does. Append-only rows of a deleted thread stay
 * stored; only the answer for them is 404, as for every other route of that session.
 */
export async function assertSessionExists(
  store: Store,
  id: string,
  childHasRows?: () => Promise<boolean>,
): Promise<void> {
  if (!(await sessionExists(store, id, childHasRows))) throw notFound('session', id, 'params.id');
}

/**
 * Whether `id` is a thread or a child session of one (see assertSessionExists). A child is known by its rows
 * (`childHasRows`, the route's own): `<thread>:task:<any id>` of a live thread answered 200 with an empty
 * list, where a session that does not exist is a 404.
 */
export async function sessionExists(
  store: Store,
  id: string,
  childHasRows?: () => Promise<boolean>,
): Promise<boolean> {
  if (await store.getThread(id)) return true;
  // Every prefix that ends before a colon may be the thread: one query, however many there are.
  const parents = [...id.matchAll(/:/g)].map((m) => id.slice(0, m.index)).filter((p) => p !== '');
  if (parents.length === 0 || (await store.listThreads({ threadIds: parents, limit: 1 })).items.length === 0)
    return false;
  return childHasRows ? await childHasRows() : true;
}

/**
 * Access to a session id of the audit and checkpoint routes: a thread the token may use, or a child session
 * (`<thread>:…`, see assertSessionExists) under one. A thread of its own whose id merely starts with another
 * thread's id and a colon is that thread, not a child: only its own scope opens it.
 */
export async function assertSessionAccess(store: Store, principal: Principal, id: string): Promise<void> {
  if (canAccessThread(principal, id)) return;
  const parents = [...id.matchAll(/:/g)].map((m) => id.slice(0, m.index)).filter((p) => p !== '');
  if (parents.some((p) => canAccessThread(principal, p)) && !(await store.getThread(id))) return;
  assertThreadAccess(principal, id);
}
