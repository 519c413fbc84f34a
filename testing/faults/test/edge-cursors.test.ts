import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type FakeModelServer, slowStream, startFakeModelServer } from '@agentlane/fake-model-server';
import { builtinServeConfig, type ServeProcess, startServeProcess } from '@agentlane/test-engines';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  compareStreams,
  HttpTally,
  readThread,
  type StandardSubscriber,
  standardSubscriber,
  startTcpProxy,
  type TcpProxy,
} from '../src/index';

/**
 * Resume cursors against a real `agentlane serve` (SQLite): every cursor that is not a plain decimal integer
 * from 0 to the head is refused with the head in the body, and a standard EventSource opened on `?after=0`
 * whose connection is cut several times while runs stream resumes each time where it was (Last-Event-ID
 * wins over the `?after=0` still in its URL): no duplicate, no gap.
 */
describe('edge cursors against agentlane serve', () => {
  const dir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'agentlane-cursors-'));
  const tally = new HttpTally();
  let fake: FakeModelServer;
  let serve: ServeProcess;
  let proxy: TcpProxy;
  let threadId = '';

  const runToCompletion = async (prompt: string): Promise<void> => {
    const res = await tally.post(`${serve.api}/threads/${threadId}/runs`, { prompt });
    const { runId } = (res.json as { run: { runId: string } }).run;
    for (let i = 0; i < 400; i++) {
      const view = await tally.request(`${serve.api}/runs/${runId}`);
      if ((view.json as { run?: { canonicalizedAt: string | null } }).run?.canonicalizedAt) return;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`run ${runId} did not complete`);
  };
  const head = async (): Promise<number> => {
    const rows = await readThread(`${serve.api}/threads/${threadId}/events?after=0`);
    return rows.reduce((m, r) => Math.max(m, r.deliverySeq), 0);
  };

  beforeAll(async () => {
    fake = await startFakeModelServer({ scenario: slowStream({ chunks: 12, delayMs: 30 }) });
    const configPath = join(dir, 'config.json');
    writeFileSync(
      configPath,
      JSON.stringify(builtinServeConfig({ fakeUrl: fake.url, workDir: dir, apiKey: 'k' })),
    );
    serve = await startServeProcess([
      '--port',
      '0',
      '--db',
      join(dir, 'agentlane.db'),
      '--config',
      configPath,
    ]);
    proxy = await startTcpProxy(Number(new URL(serve.url).port));
    const created = await tally.post(`${serve.api}/sessions`, { engine: 'builtin', title: 'cursors' });
    threadId = (created.json as { session: { id: string } }).session.id;
    await runToCompletion('a first run');
  }, 60_000);
  afterAll(async () => {
    await proxy?.close();
    await serve?.kill();
    await fake?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses every cursor beyond the head or not a plain decimal integer, with the head in the body', async () => {
    const at = await head();
    expect(at).toBeGreaterThan(0);
    const forms: [string, number][] = [
      [String(at + 1), 409],
      [String(at + 1000), 409],
      ['1e30', 400],
      // Plain digits past 2^53 are still a position: beyond the head.
      [String(2 ** 53 + 1), 409],
      ['0x10', 400],
      ['-1', 400],
      ['', 400],
      ['01', 400],
    ];
    const refused: unknown[] = [];
    for (const [cursor, status] of forms) {
      for (const [where, field] of [
        ['query', 'query.after'],
        ['header', 'headers.last-event-id'],
      ] as const) {
        const url = `${serve.api}/threads/${threadId}/events${where === 'query' ? `?after=${cursor}` : ''}`;
        const res = await tally.request(
          url,
          where === 'header' ? { headers: { 'last-event-id': cursor } } : {},
        );
        refused.push({ cursor, where, status: res.status, body: res.json });
        expect({ cursor, where, status: res.status }).toEqual({ cursor, where, status });
        expect(res.json).toMatchObject({
          error: { code: status === 409 ? 'conflict' : 'invalid_request', field },
          headDeliverySeq: at,
        });
        expect(typeof (res.json as { error: { message: unknown } }).error.message).toBe('string');
      }
    }
    // Last-Event-ID wins over ?after: a bad header next to a good ?after is refused.
    const both = await tally.request(`${serve.api}/threads/${threadId}/events?after=0`, {
      headers: { 'last-event-id': String(at + 5) },
    });
    expect(both.status).toBe(409);
    expect(tally.serverErrorsBut503()).toEqual({});
    expect(refused).toHaveLength(forms.length * 2);
  });

  it('a standard EventSource on ?after=0 whose connection is cut 3 times mid-run: no duplicate, no gap', async () => {
    let source: StandardSubscriber | null = null;
    try {
      source = standardSubscriber(
        `http://127.0.0.1:${proxy.port}/api/harness/threads/${threadId}/events?after=0`,
      );
      const s = source;
      const waitRows = async (n: number): Promise<void> => {
        for (let i = 0; i < 400 && s.rows.length < n; i++) await new Promise((r) => setTimeout(r, 25));
      };
      // Each cut comes while a run streams, once a few more of its rows arrived.
      const runs: Promise<void>[] = [];
      let cuts = 0;
      for (let i = 0; i < 3; i++) {
        runs.push(runToCompletion(`stream while the connection is cut (${i})`));
        await waitRows(s.rows.length + 3);
        if (proxy.dropAll() > 0) cuts++;
        // Reconnected (after the server's retry hint) before the next cut.
        for (let j = 0; j < 200 && s.opened.length <= cuts; j++) await new Promise((r) => setTimeout(r, 25));
      }
      await Promise.all(runs);
      await runToCompletion('one more run after the cuts');
      const fresh = await readThread(`${serve.api}/threads/${threadId}/events?after=0`);
      const last = fresh.reduce((m, r) => Math.max(m, r.deliverySeq), 0);
      for (let i = 0; i < 400 && (s.rows.at(-1)?.deliverySeq ?? 0) < last; i++)
        await new Promise((r) => setTimeout(r, 25));
      expect(cuts).toBe(3);
      expect(s.opened.length).toBe(cuts + 1);
      // Each reconnect resumed from the last row it had (the header), never from the URL's ?after=0.
      expect(s.opened[0]).toBe(0);
      for (const after of s.opened.slice(1)) expect(after).toBeGreaterThan(0);
      expect(compareStreams(s.rows, fresh)).toEqual({ lost: 0, duplicated: 0, reordered: 0 });
      expect(s.rows.map((r) => r.deliverySeq)).toEqual(fresh.map((r) => r.deliverySeq));
      expect(tally.serverErrorsBut503()).toEqual({});
    } finally {
      source?.close();
    }
  }, 60_000);
});
