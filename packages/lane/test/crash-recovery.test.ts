import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { DeliveryRow } from '@agentlane/contract';
import { createSqliteStore } from '@agentlane/store';
import { afterEach, describe, expect, it } from 'vitest';
import { createLane, ENGINE_LOST } from '../src';
import { stableJson } from '../src/internal';
import { Collector, waitFor } from './helpers/collect';
import { sqliteTestStore, type TestStore } from './helpers/stores';
import { createTestDriver } from './helpers/test-driver';

const child = fileURLToPath(new URL('./helpers/crash-child.ts', import.meta.url));
const root = fileURLToPath(new URL('../../..', import.meta.url));

/** Runs the child until it has committed at least `minRows` rows, then SIGKILLs it. */
function runAndKill(path: string, threadId: string, minRows: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', child, path, threadId], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let runId = '';
    let stderr = '';
    let out = '';
    p.stderr.on('data', (d) => {
      stderr += String(d);
    });
    p.stdout.on('data', (d) => {
      out += String(d);
      const lines = out.split('\n');
      out = lines.pop() ?? '';
      for (const line of lines) {
        const [tag, value] = line.split(' ');
        if (tag === 'run') runId = value ?? '';
        if (tag === 'rows' && Number(value) >= minRows && runId) p.kill('SIGKILL');
      }
    });
    p.on('exit', (_code, signal) => {
      if (signal === 'SIGKILL') resolve(runId);
      else reject(new Error(`child exited on its own (${String(signal)}): ${stderr}`));
    });
  });
}

describe('crash recovery (SQLite, SIGKILLed child process)', () => {
  let t: TestStore;
  afterEach(async () => {
    await t.cleanup();
  });

  it('nothing committed is lost, nothing is duplicated, the run is settled and canonicalized', async () => {
    t = await sqliteTestStore();
    await t.store.close();
    const path = t.path as string;
    const runId = await runAndKill(path, 'th', 40);

    // What the dead process had committed.
    const store = createSqliteStore({ path });
    t.store = store;
    await store.migrate();
    const before = await store.readEvents('th', 0, 100_000);
    const framesBefore = await store.readFrames(runId);
    expect(before.length).toBeGreaterThanOrEqual(40);
    expect((await store.getRun(runId))?.status).toBe('running');

    const lane = createLane({
      store,
      drivers: [createTestDriver()],
      ownerId: 'restarted',
      pollIntervalMs: 20,
    });
    const c = new Collector();
    await lane.subscribe('th', 0, c.listener);
    await lane.start();
    const run = await waitFor(async () => {
      const r = await store.getRun(runId);
      return r?.canonicalizedAt ? r : null;
    }, 20_000);
    await c.until((x) => x.events.some((e) => e.type === 'run.canonicalized'));
    await lane.stop();

    expect(run.status).toBe('failed');
    // The error names the lost process; the restarted lane took the run once the child's lease expired.
    expect(run.error).toMatch(new RegExp(`^${ENGINE_LOST}: child-\\d+ stopped renewing its lease$`));
    const after = await store.readEvents('th', 0, 100_000);
    // Nothing committed was lost or changed: the old rows are a prefix of the table.
    expect(after.slice(0, before.length).map(strip)).toEqual(before.map(strip));
    // deliverySeq 1..N with no gap and no duplicate; the subscriber saw exactly the table.
    expect(after.map((r) => r.deliverySeq)).toEqual(after.map((_, i) => i + 1));
    expect(c.seqs()).toEqual(after.map((r) => r.deliverySeq));
    // Nothing duplicated: every revision of an eventId differs from the previous one, revisions count up.
    const byId = new Map<string, DeliveryRow[]>();
    for (const r of after) byId.set(r.eventId, [...(byId.get(r.eventId) ?? []), r]);
    for (const revs of byId.values()) {
      expect(revs.map((r) => r.revision)).toEqual(revs.map((_, i) => i + 1));
      for (let i = 1; i < revs.length; i++)
        expect(stableJson(revs[i]?.event)).not.toBe(stableJson(revs[i - 1]?.event));
    }
    // Every stored delta frame has its event; the fatal error and the end of the turn were added.
    const frames = await store.readFrames(runId);
    expect(frames.length).toBe(framesBefore.length + 2);
    const deltaFrames = frames.filter((f) => (f.frame as { t?: string }).t === 'delta').length;
    const latest = await store.latestEvents({ threadId: 'th', runId });
    expect(latest.filter((r) => r.kind === 'message.delta').length).toBe(deltaFrames);
    const fatal = latest.find((r) => r.kind === 'harness.error');
    expect(fatal?.event.payload).toMatchObject({ message: run.error, fatal: true });
    expect(latest.some((r) => r.kind === 'turn.completed')).toBe(true);
    expect(after.every((r) => !r.provisional)).toBe(true);
  }, 60_000);
});

function strip(r: DeliveryRow) {
  return { deliverySeq: r.deliverySeq, eventId: r.eventId, revision: r.revision, event: stableJson(r.event) };
}
