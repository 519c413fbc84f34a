import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDriver, recordedSessions } from '@agentlane/adapter-replay';
import { AUDIT_RECORD_VERSION, type AuditableCall, type JsonValue } from '@agentlane/contract';
import { deterministicUlid, type EngineDriver, type Translator } from '@agentlane/engine-kit';
import { type AuditSink, createLane, RunTranslation } from '@agentlane/lane';
import { Canonicalizer, Materializer, PublishHub, RunPipeline } from '@agentlane/lane/internal';
import { type AuditLedger, createSqliteLedger } from '@agentlane/ledger';
import { openStore, type SourceLaneStore, type Store } from '@agentlane/store';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

// The lane writes the audit rows external engines' translators return, in the live pass and again in the
// final pass over the sealed source. These tests use real pieces only: the SQLite store, the SQLite ledger
// on the same file, the real ACP translator (through the replay engine, playing the recorded Claude Code
// session at full speed), the lane's executor and canonicalizer.

const trace = recordedSessions().find((s) => s.name === 'replay-claude-code');
if (!trace) throw new Error('the recorded Claude Code session is missing');

/** The real ledger, with a log of every write the lane made and what it inserted. */
class LoggedLedger implements AuditSink {
  readonly writes: { rows: AuditableCall[]; inserted: number }[] = [];
  constructor(readonly ledger: AuditLedger) {}
  async record(rows: readonly AuditableCall[]) {
    const result = await this.ledger.record(rows);
    this.writes.push({ rows: [...rows], inserted: result.inserted });
    return result;
  }
}

async function until<T>(probe: () => Promise<T | null | undefined>, what: string): Promise<T> {
  for (let i = 0; i < 600; i++) {
    const value = await probe();
    if (value) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** The final pass, by hand: re-translate the sealed source and write its rows to the ledger again. */
async function retranslate(store: SourceLaneStore, threadId: string, runId: string) {
  const driver = createDriver({ trace: trace?.trace ?? '', provider: 'acp', speed: 0 });
  const translation = new RunTranslation(driver.translator, {
    threadId,
    runId,
    turnId: runId,
    provider: driver.provider,
  });
  const rows: AuditableCall[] = [];
  for (const frame of await store.readFrames(runId)) rows.push(...(translation.push(frame).audit ?? []));
  rows.push(...(translation.finish(new Date().toISOString()).audit ?? []));
  return rows;
}

describe('audit rows of an external engine through the lane', () => {
  let dir: string;
  let store: Store;
  let ledger: AuditLedger;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentlane-lane-audit-'));
    store = await openStore(join(dir, 'agentlane.db'));
    ledger = createSqliteLedger({ database: join(dir, 'agentlane.db') });
  });
  afterEach(async () => {
    await ledger.close();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('the live pass writes the rows; the final pass and any later re-translation are no-ops on the ledger', async () => {
    const sink = new LoggedLedger(ledger);
    const driver = createDriver({ trace: trace.trace, provider: 'acp', name: 'replay', speed: 0 });
    const lane = createLane({
      store,
      drivers: [driver],
      ownerId: 'audit-test',
      pollIntervalMs: 20,
      audit: sink,
    });
    await store.createThread({
      threadId: 'th_audit',
      engine: 'replay',
      title: null,
      workDir: dir,
      metadata: {},
    });
    await lane.start();
    try {
      const { run } = await lane.createRun({ threadId: 'th_audit', prompt: 'Create hello.txt' });
      await until(() => store.getCompletion(run.runId), 'canonicalization');

      const stored = (await ledger.list('th_audit')).items;
      expect(stored.map((r) => [r.call_class, r.seq_within_turn, r.status, r.transport])).toEqual([
        ['tool', 1, 'ok', 'acp'],
        ['model', 2, 'ok', 'acp'],
      ]);
      expect(stored.every((r) => r.turn_id === run.runId && r.provider === 'acp')).toBe(true);

      // Live writes inserted both rows; the final pass (the last write) rewrote the very same rows: no-op.
      expect(sink.writes.length).toBeGreaterThanOrEqual(2);
      expect(sink.writes.reduce((n, w) => n + w.inserted, 0)).toBe(2);
      const final = sink.writes.at(-1);
      expect(final?.inserted).toBe(0);
      expect(final?.rows).toEqual(stored);
      for (const write of sink.writes.slice(0, -1)) {
        for (const row of write.rows) expect(stored).toContainEqual(row);
      }

      // Re-translating the sealed source again rebuilds byte-identical rows (record ids included).
      const again = await retranslate(store, 'th_audit', run.runId);
      expect(again).toEqual(stored);
      expect(await ledger.record(again)).toEqual({ inserted: 0 });
      expect((await ledger.list('th_audit')).items).toEqual(stored);
    } finally {
      await lane.stop();
    }
  }, 60_000);

  it('rows the live pass never wrote (a crash, a ledger outage) are written by the final pass', async () => {
    // The source lane as a crashed process left it: frames stored, nothing translated, run settled.
    await store.createThread({
      threadId: 'th_crash',
      engine: 'replay',
      title: null,
      workDir: dir,
      metadata: {},
    });
    const { run } = await store.createRun({ threadId: 'th_crash', prompt: 'Create hello.txt' });
    await store.claimRun(run.runId, 'crashed-owner');
    const { readTrace } = await import('@agentlane/adapter-replay');
    const frames: JsonValue[] = [
      { harness: 'turn.started', prompt: 'Create hello.txt' },
      ...readTrace(trace.trace),
    ];
    await store.appendFrames(
      run.runId,
      frames.map((frame) => ({ receivedAt: new Date().toISOString(), frame })),
    );
    await store.finalizeRun(run.runId, 'failed', 'the engine process was lost');

    const sink = new LoggedLedger(ledger);
    const hub = new PublishHub(store, { headPollMs: 0 });
    const driver = createDriver({ trace: trace.trace, provider: 'acp', name: 'replay', speed: 0 });
    const canonicalizer = new Canonicalizer({
      store,
      hub,
      workerId: 'w',
      driverFor: () => driver,
      audit: sink,
    });
    try {
      expect(await canonicalizer.processOnce()).toEqual([
        expect.objectContaining({ runId: run.runId, status: 'completed' }),
      ]);
    } finally {
      hub.close();
    }
    // The recorded session ended normally (its prompt response is in the frames): both calls are there.
    const stored = (await ledger.list('th_crash')).items;
    expect(sink.writes.map((w) => w.inserted)).toEqual([2]);
    expect(stored.map((r) => [r.call_class, r.status])).toEqual([
      ['tool', 'ok'],
      ['model', 'ok'],
    ]);
    expect(await ledger.record(await retranslate(store, 'th_crash', run.runId))).toEqual({ inserted: 0 });
  }, 60_000);

  it('live rows stop once the live pass translated frames the store kept in another order; the final pass writes the truth', async () => {
    // One tool call per frame {call: id}, numbered in the order the translator sees the frames.
    const translator: Translator<{ seq: number }> = {
      provider: 'calls',
      initialState: () => ({ seq: 0 }),
      translate(record, state, ctx) {
        const id = (record.frame as { call?: string }).call;
        if (!id) return { state, events: [] };
        const seq = state.seq + 1;
        const row: AuditableCall = {
          record_id: deterministicUlid(Date.parse(record.receivedAt), `${ctx.threadId}/${ctx.turnId}/${seq}`),
          audit_record_version: AUDIT_RECORD_VERSION,
          session_id: ctx.threadId,
          turn_id: ctx.turnId,
          stage_id: 'engine-turn',
          seq_within_turn: seq,
          created_at: record.receivedAt,
          actor_kind: 'engine',
          session_auth_method: 'none',
          call_class: 'tool',
          provider: 'calls',
          model: null,
          transport: 'test',
          status: 'ok',
          latency_ms: 0,
          finish_reason: null,
          http_status: null,
          payload: { kind: 'tool_call', toolCallId: id, toolName: 'call', input: {} },
        };
        return { state: { seq }, events: [], audit: [row] };
      },
      finish: (state) => ({ state, events: [] }),
    };
    const driver: EngineDriver = {
      name: 'calls',
      provider: 'calls',
      label: 'calls',
      translator: translator as unknown as Translator,
      openSession: () => Promise.reject(new Error('not an engine')),
    };
    await store.createThread({
      threadId: 'th_moved',
      engine: 'calls',
      title: null,
      workDir: dir,
      metadata: {},
    });
    const { run } = await store.createRun({ threadId: 'th_moved', prompt: 'p' });
    await store.claimRun(run.runId, 'me');
    const sink = new LoggedLedger(ledger);
    const hub = new PublishHub(store, { headPollMs: 0 });
    const ctx = { threadId: 'th_moved', runId: run.runId, turnId: run.runId, provider: 'calls' };
    const pipeline = new RunPipeline({
      store,
      hub,
      threadId: 'th_moved',
      runId: run.runId,
      translation: new RunTranslation(driver.translator, ctx),
      materializer: new Materializer(store),
      audit: sink,
    });
    const call = (id: string) => ({ call: id }) as JsonValue;
    try {
      pipeline.emit(call('a'));
      await pipeline.drain();
      pipeline.emit(call('b'));
      await pipeline.drain();
      // Someone else appends to this run's source lane: the live pass predicted seq 3 for c, the store says 4.
      await store.appendFrames(run.runId, [{ receivedAt: new Date().toISOString(), frame: call('x') }]);
      pipeline.emit(call('c'));
      await pipeline.drain();
      pipeline.emit(call('d'));
      await pipeline.drain();
      pipeline.close();
      const live = sink.writes.flatMap((w) =>
        w.rows.map((r) => (r.payload.kind === 'tool_call' ? r.payload.toolCallId : '')),
      );
      // c and d were numbered from a source order the store did not keep: not written live.
      expect(live).toEqual(['a', 'b']);

      await store.finalizeRun(run.runId, 'completed');
      const canonicalizer = new Canonicalizer({
        store,
        hub,
        workerId: 'w',
        driverFor: () => driver,
        audit: sink,
      });
      expect(await canonicalizer.processOnce()).toEqual([expect.objectContaining({ status: 'completed' })]);
    } finally {
      hub.close();
    }
    const stored = (await ledger.list('th_moved')).items;
    expect(
      stored.map((r) => [r.seq_within_turn, r.payload.kind === 'tool_call' ? r.payload.toolCallId : '']),
    ).toEqual([
      [1, 'a'],
      [2, 'b'],
      [3, 'x'],
      [4, 'c'],
      [5, 'd'],
    ]);
    expect(sink.writes.at(-1)?.inserted).toBe(3);
  }, 60_000);
});
