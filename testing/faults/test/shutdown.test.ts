import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeModelServer } from '@agentlane/fake-model-server';
import { builtinServeConfig, startServeProcess } from '@agentlane/test-engines';
import { afterAll, describe, expect, it } from 'vitest';
import { HttpTally } from '../src/index';

const GRACE_MS = 3000;

type RunView = {
  status: string;
  outcome: string | null;
  error: string | null;
  canonicalizedAt: string | null;
};

/**
 * SIGTERM on a real `agentlane serve` with a run waiting for an approval and one streaming slowly: the
 * process exits within its grace period (exit code 0), neither run is settled as cancelled, and another
 * process on the same SQLite file settles both at once as handed back (failed, naming the process).
 */
describe('SIGTERM with runs in flight', () => {
  const dir = mkdtempSync(join(tmpdir(), 'agentlane-shutdown-'));
  const cleanup: (() => Promise<void> | void)[] = [];
  afterAll(async () => {
    for (const c of cleanup.reverse()) await c();
    rmSync(dir, { recursive: true, force: true });
  });

  it('waits up to the grace period, hands the runs back, never cancels them, and exits in time', async () => {
    const fake = await startFakeModelServer({
      scenario: (request) => {
        const body = request.body as { tools?: unknown[] };
        if (!body.tools) return { text: '1. Do it' };
        if (request.lastUserPrompt === 'Write later.txt')
          return {
            toolCalls: [
              { name: 'write_file', arguments: { path: 'later.txt', content: 'x\n' }, id: 'call_s1' },
            ],
          };
        // A turn far longer than the grace period.
        return { text: 'word '.repeat(400), chunkDelayMs: 100 };
      },
    });
    cleanup.push(() => fake.close());
    const configPath = join(dir, 'config.json');
    writeFileSync(
      configPath,
      JSON.stringify(builtinServeConfig({ fakeUrl: fake.url, workDir: dir, apiKey: 'k' })),
    );
    const db = join(dir, 'agentlane.db');
    const args = ['--port', '0', '--db', db, '--config', configPath, '--run-lease-renew-ms', '300'];
    const start = (extra: string[] = []) => startServeProcess([...args, ...extra], 120_000);
    const stopping = await start(['--shutdown-grace-ms', String(GRACE_MS)]);
    cleanup.push(() => stopping.kill());
    const tally = new HttpTally();
    const session = await tally.post(`${stopping.api}/sessions`, { engine: 'builtin', title: 'sigterm' });
    const threadId = (session.json as { session: { id: string } }).session.id;
    const other = await tally.post(`${stopping.api}/sessions`, { engine: 'builtin', title: 'sigterm 2' });
    const otherId = (other.json as { session: { id: string } }).session.id;
    const create = async (thread: string, prompt: string) =>
      (
        (await tally.post(`${stopping.api}/threads/${thread}/runs`, { prompt })).json as {
          run: { runId: string };
        }
      ).run.runId;
    const waiting = await create(threadId, 'Write later.txt');
    const streaming = await create(otherId, 'Tell a long story');
    let api = stopping.api;
    const view = async (runId: string) =>
      ((await tally.request(`${api}/runs/${runId}`)).json as { run: RunView }).run;
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      const [a, b] = await Promise.all([view(waiting), view(streaming)]);
      if (a.status === 'running' && b.status === 'running') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    // Let the approval be asked.
    await new Promise((r) => setTimeout(r, 1500));
    const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
      stopping.child.once('exit', (code) => resolve({ code, at: Date.now() })),
    );
    const sentAt = Date.now();
    stopping.child.kill('SIGTERM');
    const { code, at } = await exited;
    // Within the grace period (plus the time a loaded machine takes to deliver the signal and reap the
    // process): handed back by the lane (0), or cut at the deadline by the backstop (1), never killed.
    const took = at - sentAt;
    if (took >= GRACE_MS + 500) console.log(stopping.output());
    expect(code === 0 || code === 1).toBe(true);
    expect(took).toBeLessThan(GRACE_MS + 500);
    // Handed back, not settled: the same command started again settles them at once.
    const again = await start();
    cleanup.push(() => again.kill());
    api = again.api;

    const settled = async (runId: string) => {
      for (const until = Date.now() + 60_000; Date.now() < until; ) {
        const run = await view(runId);
        if (run.canonicalizedAt) return run;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`run ${runId} was not settled`);
    };
    for (const runId of [waiting, streaming]) {
      const run = await settled(runId);
      // Either it finished within the grace period, or it was handed back: never cancelled by nobody.
      expect(run.outcome).not.toBe('cancelled');
      if (run.status === 'failed')
        expect(run.error).toMatch(/^engine process lost: \S+ shut down before the run finished$/);
    }
    expect((await settled(waiting)).status).toBe('failed');
    expect(tally.serverErrorsBut503()).toEqual({});
  }, 300_000);
});
