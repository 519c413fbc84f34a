import type { HttpTally } from './http-tally';
import { compareStreams, type FollowedRow, readThread } from './sse-follower';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What the kill cycles left of a run: its state as the API shows it once settled. */
interface SettledRunView {
  status: string;
  canonicalizedAt: string | null;
  endedAt: string | null;
  error: string | null;
}

export interface RunsSettled {
  runsStuck: number;
  runsNotCanonicalized: number;
  settleMs: number[];
}

/**
 * Waits (up to a minute) until every run is canonicalized, then counts the runs left queued or running or
 * without a completion record, and for each run a kill cut off (settled as `engine process lost`), how long
 * after the last kill before its end it was settled.
 */
export async function settleRuns(
  tally: HttpTally,
  api: string,
  runIds: readonly string[],
  kills: readonly number[],
): Promise<RunsSettled> {
  const views = new Map<string, SettledRunView>();
  const deadline = Date.now() + 60_000;
  for (;;) {
    for (const runId of runIds.filter((id) => !views.get(id)?.canonicalizedAt)) {
      const res = await tally.request(`${api}/runs/${runId}`);
      if (res.status === 200) views.set(runId, (res.json as { run: SettledRunView }).run);
    }
    const open = runIds.filter((id) => !views.get(id)?.canonicalizedAt);
    if (open.length === 0 || Date.now() > deadline) break;
    await sleep(100);
  }
  const runsStuck = runIds.filter((id) => {
    const status = views.get(id)?.status;
    return status !== 'completed' && status !== 'failed';
  }).length;
  const runsNotCanonicalized = runIds.filter((id) => !views.get(id)?.canonicalizedAt).length;
  const settleMs: number[] = [];
  for (const view of views.values()) {
    if (!view.error?.startsWith('engine process lost') || !view.endedAt) continue;
    const ended = Date.parse(view.endedAt);
    const kill = kills.filter((k) => k <= ended).at(-1);
    if (kill !== undefined) settleMs.push(ended - kill);
  }
  return { runsStuck, runsNotCanonicalized, settleMs };
}

/** The latest revision of each eventId, in deliverySeq order: what a reader of the thread ends up holding. */
function latest(rows: readonly FollowedRow[]): string {
  const byId = new Map<string, FollowedRow>();
  for (const row of rows) {
    const seen = byId.get(row.eventId);
    if (!seen || row.revision > seen.revision) byId.set(row.eventId, row);
  }
  return JSON.stringify([...byId.values()].sort((a, b) => a.deliverySeq - b.deliverySeq));
}

export interface StreamsCompared {
  lost: number;
  duplicated: number;
  reordered: number;
  subscribersDiffering: number;
  rows: number;
}

/** Each subscriber against a fresh full read of its thread (once it caught up with the head), summed. */
export async function compareSubscribers(
  api: string,
  subscribers: readonly { id: string; rows: readonly FollowedRow[] }[],
): Promise<StreamsCompared> {
  const report = { lost: 0, duplicated: 0, reordered: 0, subscribersDiffering: 0, rows: 0 };
  for (const { id, rows } of subscribers) {
    const fresh = await readThread(`${api}/threads/${id}/events?after=0`);
    const head = fresh.reduce((m, r) => Math.max(m, r.deliverySeq), 0);
    const until = Date.now() + 20_000;
    while (rows.reduce((m, r) => Math.max(m, r.deliverySeq), 0) < head && Date.now() < until) await sleep(50);
    const c = compareStreams(rows, fresh);
    report.lost += c.lost;
    report.duplicated += c.duplicated;
    report.reordered += c.reordered;
    report.rows += fresh.length;
    if (latest(rows) !== latest(fresh)) report.subscribersDiffering++;
  }
  return report;
}
