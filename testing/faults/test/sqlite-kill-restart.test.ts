import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { slowStream, startFakeModelServer } from '@agentlane/fake-model-server';
import { builtinServeConfig, startServeProcess } from '@agentlane/test-engines';
import { afterAll, describe, expect, it } from 'vitest';
import { HttpTally } from '../src/index';

/** CI runs a few cycles; FAULTS_SQLITE_CYCLES=100 makes it a torture run. */
const CYCLES = Number(process.env.FAULTS_SQLITE_CYCLES ?? 5);

/**
 * `agentlane serve` on one SQLite file, SIGKILLed at a random moment while runs stream, started again with
 * the same command, over and over: it must start every time (the start-up used to fail with SQLITE_BUSY,
 * the checkpoint saver's migration waiting for the lock this process's own store held), and at the end
 * every run is settled and canonicalized.
 */
describe('SQLite: SIGKILL at a random moment, then start again', () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentlane-sqlite-kill-'));
  const db = join(dir, 'agentlane.db');
  const cleanup: (() => Promise<void> | void)[] = [];
  afterAll(async () => {
    for (const c of cleanup.reverse()) await c();
    rmSync(dir, { recursive: true, force: true });
  });

  it(`starts again after each of ${CYCLES} kills, and settles every run`, async () => {
    const fake = await startFakeModelServer({ scenario: slowStream({ chunks: 10, delayMs: 40 }) });
    cleanup.push(() => fake.close());
    const configPath = join(dir, 'config.json');
    writeFileSync(
      configPath,
      JSON.stringify(builtinServeConfig({ fakeUrl: fake.url, workDir: dir, apiKey: 'k' })),
    );
    // A short lease, as the kill cycles use: the last start settles the killed runs after it, not after 10 s.
    const lease = ['--run-lease-ms', '1500', '--run-lease-renew-ms', '300'];
    const start = () =>
      startServeProcess(['--port', '0', '--db', db, '--config', configPath, ...lease], 30_000);
    const tally = new HttpTally();
    const runIds: string[] = [];
    let threadId = '';
    let starts = 0;
    for (let cycle = 0; cycle < CYCLES; cycle++) {
      const serve = await start();
      starts++;
      if (!threadId) {
        const created = await tally.post(`${serve.api}/sessions`, { engine: 'builtin', title: 'kill loop' });
        threadId = (created.json as { session: { id: string } }).session.id;
      }
      for (let i = 0; i < 2; i++) {
        const res = await tally.post(`${serve.api}/threads/${threadId}/runs`, {
          prompt: `cycle ${cycle}.${i}`,
        });
        if (res.status === 201) runIds.push((res.json as { run: { runId: string } }).run.runId);
      }
      // Somewhere while the runs stream, commit, canonicalize or wait in the queue.
      await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 1500)));
      await serve.kill();
    }
    const last = await start();
    starts++;
    cleanup.push(() => last.kill());
    const deadline = Date.now() + 60_000;
    let unsettled = [...runIds];
    while (unsettled.length > 0 && Date.now() < deadline) {
      const views = await Promise.all(unsettled.map((id) => tally.request(`${last.api}/runs/${id}`)));
      unsettled = unsettled.filter((_, i) => {
        const run = (views[i]?.json as { run?: { status: string; canonicalizedAt: string | null } })?.run;
        return !(run && (run.status === 'completed' || run.status === 'failed') && run.canonicalizedAt);
      });
      if (unsettled.length > 0) await new Promise((r) => setTimeout(r, 250));
    }
    console.log(
      '[faults] SQLite kill cycles:',
      JSON.stringify({ cycles: CYCLES, starts, runs: runIds.length }),
    );
    expect(starts).toBe(CYCLES + 1);
    expect(runIds.length).toBe(CYCLES * 2);
    expect(unsettled).toEqual([]);
    expect(tally.serverErrorsBut503()).toEqual({});
  }, 240_000);
});
