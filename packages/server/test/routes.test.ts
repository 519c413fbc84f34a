import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, readJson, startTestServer, type TestServer } from './support/harness';
import { SseReader } from './support/sse-reader';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

describe('sessions', () => {
  it('creates, reads, lists, updates and deletes a session', async () => {
    const id = await t.createSession();
    const got = await readJson(await fetch(`${t.api}/sessions/${id}`));
    expect(got.session).toMatchObject({
      id,
      engine: 'scripted',
      provider: 'scripted',
      title: 'test',
      generation: expect.any(Number),
    });
    const list = await readJson(await fetch(`${t.api}/sessions?limit=50`));
    expect(list.sessions.map((s: { id: string }) => s.id)).toContain(id);
    const put = await fetch(`${t.api}/sessions/${id}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'renamed', metadata: { a: 1 } }),
    });
    expect(put.status).toBe(200);
    expect((await readJson(put)).session).toMatchObject({ title: 'renamed', metadata: { a: 1 } });
    const stale = await fetch(`${t.api}/sessions/${id}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'x', expectedGeneration: 999 }),
    });
    expect(stale.status).toBe(409);
    // A run asked for at a stale generation names the field too.
    const staleRun = await postJson(`${t.api}/threads/${id}/runs`, { prompt: 'x', expectedGeneration: 999 });
    expect([staleRun.status, (staleRun.json as { error: { field?: string } }).error.field]).toEqual([
      409,
      'body.expectedGeneration',
    ]);
    expect((await fetch(`${t.api}/sessions/${id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await fetch(`${t.api}/sessions/${id}`)).status).toBe(404);
  });

  it('a session with a run in progress is not deleted (409); once deleted, its open streams end', async () => {
    const id = await t.createSession();
    const live = new SseReader(`${t.api}/threads/${id}/events`);
    const created = await postJson(`${t.api}/threads/${id}/runs`, { prompt: 'approve' });
    const runId = (created.json as { run: { runId: string } }).run.runId;
    await live.waitFor((r) => r.events.some((e) => 'event' in e && e.event.kind === 'approval.requested'));
    // Answers name a request the run made, and an option it offered.
    const asked = live.events.find((e) => 'event' in e && e.event.kind === 'approval.requested');
    const approvalId =
      asked && 'event' in asked ? (asked.event.payload as { approvalId: string }).approvalId : '';
    const noSuch = await postJson(`${t.api}/runs/${runId}/approvals/nope-1`, { outcome: 'cancelled' });
    expect([noSuch.status, noSuch.json.error]).toEqual([
      404,
      { code: 'not_found', message: 'this run asked no approval "nope-1"', field: 'params.approvalId' },
    ]);
    const badOption = await postJson(`${t.api}/runs/${runId}/approvals/${approvalId}`, {
      outcome: 'selected',
      optionId: 'no-such-option',
    });
    expect([badOption.status, (badOption.json as { error: { field: string } }).error.field]).toEqual([
      400,
      'body.optionId',
    ]);
    const noQuestion = await postJson(`${t.api}/runs/${runId}/questions/nope-1`, { outcome: 'declined' });
    expect(noQuestion.status).toBe(404);
    const refused = await fetch(`${t.api}/sessions/${id}`, { method: 'DELETE' });
    expect(refused.status).toBe(409);
    expect((await readJson(refused)).error.field).toBe('params.id');
    expect((await postJson(`${t.api}/runs/${runId}/cancel`, {})).status).toBe(202);
    for (let i = 0; i < 200 && (await t.store.getRun(runId))?.status === 'running'; i++)
      await new Promise((r) => setTimeout(r, 25));
    expect((await fetch(`${t.api}/sessions/${id}`, { method: 'DELETE' })).status).toBe(204);
    await live.done;
    expect(live.ended).toBe(true);
  });

  it('pages through sessions with a cursor', async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 5; i++) ids.add(await t.createSession());
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const q: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
      const page = await readJson(await fetch(`${t.api}/sessions?limit=2${q}`));
      expect(page.sessions.length).toBeLessThanOrEqual(2);
      seen.push(...page.sessions.map((s: { id: string }) => s.id));
      cursor = page.nextCursor;
    } while (cursor);
    for (const id of ids) expect(seen).toContain(id);
    expect(new Set(seen).size).toBe(seen.length);
  });
});

describe('runs and streams', () => {
  it('execute streams the run until its completion signal', async () => {
    const id = await t.createSession();
    const reader = new SseReader(`${t.api}/sessions/${id}/execute`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'hello' }),
    });
    await reader.done;
    expect(reader.status).toBe(200);
    expect(reader.headers?.get('content-type')).toContain('text/event-stream');
    expect(reader.headers?.get('x-accel-buffering')).toBe('no');
    const types = reader.events.map((e) => e.type);
    expect(types[0]).toBe('stream.opened');
    expect(types).toContain('message.delta');
    const last = reader.events.filter((e) => e.type !== 'stream.closing').at(-1);
    expect(last?.type).toBe('run.canonicalized');
    const delta = reader.events.find((e) => e.type === 'message.delta');
    expect(
      delta && 'event' in delta && delta.event.kind === 'message.delta' && delta.event.payload.delta,
    ).toBe('echo: hello');
  });

  it('thread stream: replay then live, resumable with Last-Event-ID and ?after, no gap and no duplicate', async () => {
    const id = await t.createSession();
    const live = new SseReader(`${t.api}/threads/${id}/events`);
    await live.waitFor((r) => r.events.length > 0);
    expect(live.events[0]).toMatchObject({ type: 'stream.opened', threadId: id, after: 0 });
    const first = await postJson(`${t.api}/threads/${id}/runs`, { prompt: 'many 20' });
    expect(first.status).toBe(201);
    await live.waitFor((r) => r.events.some((e) => e.type === 'run.canonicalized'));
    const seqs = live.seqs;
    expect(seqs.length).toBeGreaterThan(20);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));
    expect(
      live.messages
        .filter((m) => m.data.type !== 'stream.opened' && 'event' in m.data)
        .every((m) => m.id === String((m.data as { deliverySeq: number }).deliverySeq)),
    ).toBe(true);

    const cut = 7;
    const resumed = new SseReader(`${t.api}/threads/${id}/events`, {
      headers: { 'last-event-id': String(cut) },
    });
    const byQuery = new SseReader(`${t.api}/threads/${id}/events?after=${cut}`);
    for (const r of [resumed, byQuery]) {
      await r.waitFor((x) => x.seqs.length >= seqs.length - cut);
      expect(r.events[0]).toMatchObject({ type: 'stream.opened', after: cut, headDeliverySeq: seqs.at(-1) });
    }
    // A second run goes live to all three, with no gap and no duplicate.
    await postJson(`${t.api}/threads/${id}/runs`, { prompt: 'many 5' });
    await live.waitFor((x) => x.events.filter((e) => e.type === 'run.canonicalized').length >= 2);
    const head = await t.store.headDeliverySeq(id);
    for (const r of [live, resumed, byQuery]) {
      await r.waitFor((x) => x.seqs.at(-1) === head);
      const start = r === live ? 0 : cut;
      expect(r.seqs).toEqual(Array.from({ length: head - start }, (_, i) => start + i + 1));
    }
    live.close();
    resumed.close();
    byQuery.close();
  });

  it('a resumed stream hears again that the runs it may hold as provisional were canonicalized', async () => {
    const id = await t.createSession();
    const first = await postJson(`${t.api}/threads/${id}/runs`, { prompt: 'many 5' });
    const runId = (first.json as { run: { runId: string } }).run.runId;
    let completion = await t.store.getCompletion(runId);
    for (let i = 0; !completion && i < 100; i++) {
      await new Promise((r) => setTimeout(r, 100));
      completion = await t.store.getCompletion(runId);
    }
    expect(completion).not.toBeNull();

    // A client that saw rows 1..2 while the run was live, then was away when its completion was published.
    const resumed = new SseReader(`${t.api}/threads/${id}/events?after=2`);
    await resumed.waitFor((x) => x.events.some((e) => e.type === 'run.canonicalized'));
    expect(resumed.events.find((e) => e.type === 'run.canonicalized')).toEqual({
      type: 'run.canonicalized',
      threadId: id,
      runId,
      status: 'completed',
      lastDeliverySeq: completion?.lastDeliverySeq,
      completedAt: completion?.completedAt,
    });
    resumed.close();

    // A stream from the start gets every row final already: no completion is replayed to it.
    const fresh = new SseReader(`${t.api}/threads/${id}/events`);
    await fresh.waitFor((x) => x.seqs.at(-1) === completion?.lastDeliverySeq);
    await new Promise((r) => setTimeout(r, 200));
    expect(fresh.events.some((e) => e.type === 'run.canonicalized')).toBe(false);
    fresh.close();
  });
});
