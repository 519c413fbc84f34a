import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnyJson, postJson, readJson, startTestServer, type TestServer } from './support/harness';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

async function activityOf(id: string): Promise<AnyJson> {
  return (await readJson(await fetch(`${t.api}/sessions/${id}`))).session.activity;
}

async function until(id: string, status: string): Promise<AnyJson> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const activity = await activityOf(id);
    if (activity.status === status) return activity;
    if (Date.now() > deadline) throw new Error(`still ${activity.status}, not ${status}`);
    await new Promise((r) => setTimeout(r, 30));
  }
}

describe('session activity (the thread list at a glance)', () => {
  it('is idle before a run, waiting on an open approval, done after it, failed after a failed turn', async () => {
    const id = await t.createSession();
    expect(await activityOf(id)).toEqual({ status: 'idle', runId: null, firstPrompt: null, headSeq: 0 });

    const created = await postJson(`${t.api}/threads/${id}/runs`, { prompt: 'approve' });
    const runId = created.json.run.runId as string;
    const waiting = await until(id, 'waiting');
    expect(waiting).toMatchObject({ runId, firstPrompt: 'approve' });
    expect(waiting.headSeq).toBeGreaterThan(0);

    await postJson(`${t.api}/runs/${runId}/approvals/ap1`, { outcome: 'selected', optionId: 'yes' });
    const done = await until(id, 'done');
    expect(done.headSeq).toBeGreaterThan(waiting.headSeq);

    await postJson(`${t.api}/threads/${id}/runs`, { prompt: 'fail' });
    const failed = await until(id, 'failed');
    // The first prompt stays the thread's first one.
    expect(failed.firstPrompt).toBe('approve');

    const list = await readJson(await fetch(`${t.api}/sessions`));
    const row = list.sessions.find((s: AnyJson) => s.id === id);
    expect(row.activity).toEqual(failed);
  });
});
