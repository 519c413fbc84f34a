import type { FollowedThread } from './cluster-load';
import { compareStreams, readThread } from './sse-follower';

export interface ClusterRunView {
  status: string;
  canonicalizedAt: string | null;
}

/** Reads a run through some server; undefined when no server answered it. */
export type RunReader = (runId: string) => Promise<ClusterRunView | undefined>;

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const settled = (run: { status?: string; canonicalizedAt?: string | null } | undefined) =>
  (run?.status === 'completed' || run?.status === 'failed') && !!run.canonicalizedAt;

/** Waits until every run is settled and canonicalized; returns the ones that are not, with their state. */
export async function waitSettled(readRun: RunReader, runIds: Iterable<string>, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  let pending = [...runIds];
  while (pending.length > 0 && Date.now() < deadline) {
    const views = await Promise.all(pending.map(readRun));
    const left = pending.filter((_, i) => !settled(views[i]));
    if (left.length === 0 || Date.now() >= deadline) {
      return pending
        .map((id, i) => (settled(views[i]) ? null : `${id} ${JSON.stringify(views[i] ?? null)}`))
        .filter((x): x is string => x !== null);
    }
    pending = left;
    await pause(250);
  }
  return pending;
}

/** Each follower's run signals against the runs' settled state (see FaultCluster.checkRunSignals). */
export async function checkRunSignals(
  readRun: RunReader,
  threads: readonly FollowedThread[],
  threadOf: ReadonlyMap<string, string>,
) {
  const total = { runs: 0, statusStale: 0, uncanonicalized: 0, followerReconnects: 0 };
  for (const t of threads) total.followerReconnects += t.follower.reconnects;
  const mine = [...threadOf.keys()];
  const views = await Promise.all(mine.map(readRun));
  const deadline = Date.now() + 10_000;
  for (const [i, runId] of mine.entries()) {
    const view = views[i];
    const follower = threads.find((t) => t.id === threadOf.get(runId))?.follower;
    if (!view || !follower || !settled(view)) continue;
    total.runs++;
    // The signals follow the settle by a few milliseconds: wait for them (bounded), never for long.
    const heard = () => follower.runs.get(runId);
    const done = () => heard()?.status === view.status && heard()?.canonicalized === view.status;
    while (!done() && Date.now() < deadline) await pause(50);
    if (heard()?.status !== view.status) total.statusStale++;
    if (heard()?.canonicalized !== view.status) total.uncanonicalized++;
  }
  return total;
}

/** Each follower against a fresh full read of its thread (once it caught up with the head), summed. */
export async function checkStreams(threads: readonly FollowedThread[]) {
  const total = { lost: 0, duplicated: 0, reordered: 0, rows: 0 };
  for (const t of threads) {
    const fresh = await readThread(`${t.server.api}/threads/${t.id}/events?after=0`);
    const deadline = Date.now() + 10_000;
    const head = fresh.reduce((m, r) => Math.max(m, r.deliverySeq), 0);
    while (t.follower.head() < head && Date.now() < deadline) await pause(50);
    const c = compareStreams(t.follower.rows, fresh);
    total.lost += c.lost;
    total.duplicated += c.duplicated;
    total.reordered += c.reordered;
    total.rows += fresh.length;
  }
  return total;
}
