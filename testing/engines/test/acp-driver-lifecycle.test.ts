import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AcpEngineConfig, createDriver } from '@agentlane/adapter-acp';
import type { JsonValue } from '@agentlane/contract';
import {
  answer,
  type FakeModelServer,
  slowStream,
  startFakeModelServer,
  toolThenAnswer,
  writeFileTool,
} from '@agentlane/fake-model-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backdateGeminiSessions, DriverHarness } from '../src/index';
import { installedAcpEngines, presets, until } from './support/acp-engines';

const root = mkdtempSync(join(tmpdir(), 'agentlane-acp-life-'));
const { entries, engines: ENGINES } = installedAcpEngines('driver lifecycle');

const isMethod = (frame: JsonValue, method: string) =>
  typeof frame === 'object' &&
  frame !== null &&
  !Array.isArray(frame) &&
  (frame.msg as { method?: string } | undefined)?.method === method;

/** Whether frames[i] is the agent's successful response to a session/new|load|resume request in frames. */
function boundResponse(frames: JsonValue[], i: number): boolean {
  const wire = (f: JsonValue | undefined) =>
    (f as { dir?: string; msg?: { id?: unknown; method?: string; result?: unknown } } | undefined) ?? {};
  const response = wire(frames[i]);
  if (response.dir !== 'agent->client' || response.msg?.method || response.msg?.result === undefined)
    return false;
  return frames.some((f) => {
    const w = wire(f);
    return (
      w.dir === 'client->agent' &&
      w.msg?.id === response.msg?.id &&
      ['session/new', 'session/load', 'session/resume'].includes(w.msg?.method ?? '')
    );
  });
}

// Each engine starts two or three times per test; cold starts take seconds on a busy machine.
describe.each(ENGINES)('ACP driver lifecycle with the real %s engine', { timeout: 180_000 }, (name) => {
  let model: FakeModelServer;
  let workDir: string;
  const config = (): AcpEngineConfig =>
    presets[name]({ entry: entries[name]!, modelBaseUrl: model.url, homeRoot: join(root, 'homes') });

  beforeAll(async () => {
    workDir = mkdtempSync(join(root, `${name}-work-`));
    model = await startFakeModelServer({ scenario: answer('ok') });
  });
  afterAll(() => model.close());

  it('cancels mid-turn: a pending approval is answered cancelled and the turn ends cancelled', async () => {
    model.setScenario(toolThenAnswer({ tool: writeFileTool(join(workDir, 'never.txt'), 'no') }));
    const harness = new DriverHarness(createDriver(config()), workDir);
    try {
      await harness.open();
      const cancel = new AbortController();
      const running = harness.turn('Write never.txt', { approve: 'none', signal: cancel.signal });
      await until(() => harness.frames.some((f) => isMethod(f, 'session/request_permission')), 60_000);
      cancel.abort();
      const { outcome } = await running;
      expect(outcome.outcome).toBe('cancelled');
      const events = harness.translate(harness.frames);
      const resolved = events.find((e) => e.draft.kind === 'approval.resolved');
      expect(resolved?.draft.payload).toMatchObject({ outcome: 'cancelled' });
      const done = events.find((e) => e.draft.kind === 'turn.completed');
      expect(done?.draft.payload).toMatchObject({ stopReason: 'cancelled' });
    } finally {
      await harness.close();
    }
  });

  it('an engine killed mid-turn gives harness.error (fatal) and a failed turn; the next session works', async () => {
    model.setScenario(slowStream({ chunks: 400, delayMs: 50 }));
    const driver = createDriver(config());
    const harness = new DriverHarness(driver, workDir);
    await harness.open();
    const running = harness.turn('Tell me a long story');
    await until(() => harness.frames.some((f) => JSON.stringify(f).includes('agent_message_chunk')), 60_000);
    const pid = (harness.session as unknown as { process: { pid: number } }).process.pid;
    process.kill(-pid, 'SIGKILL');
    const { outcome } = await running;
    expect(outcome.outcome).toBe('threw');
    const events = harness.translate(harness.frames);
    const error = events.find((e) => e.draft.kind === 'harness.error');
    expect(error?.draft.payload).toMatchObject({ code: 'engine.exited', fatal: true });
    expect(events.find((e) => e.draft.kind === 'turn.completed')?.draft.payload).toMatchObject({
      stopReason: 'error',
    });
    const binding = harness.session!.binding;
    await harness.close();

    model.setScenario(answer('back again'));
    const next = new DriverHarness(driver, workDir);
    try {
      await next.open(binding, 2);
      const { outcome: second } = await next.turn('Are you there?');
      expect(second).toEqual({ outcome: 'completed' });
      const texts = next
        .translate(next.frames)
        .filter((e) => e.draft.kind === 'message.completed')
        .map((e) => (e.draft.payload as { text: string }).text);
      expect(texts).toContain('back again');
    } finally {
      await next.close();
    }
  });

  // Claude Code sends its command catalog on a 0 ms timer after the session response; the driver holds it
  // until session.bound is recorded, so the generation never falls back to the translator's default of 1.
  it('continues the same native session after a restart (resume or load, new generation)', async () => {
    model.setScenario(answer('first answer'));
    const driver = createDriver(config());
    const first = new DriverHarness(driver, workDir);
    await first.open();
    expect((await first.turn('Remember the word pineapple.')).outcome).toEqual({ outcome: 'completed' });
    const binding = first.session!.binding;
    await first.close();

    model.setScenario(answer('second answer'));
    const before = model.modelRequests().length;
    const second = new DriverHarness(driver, workDir);
    try {
      await second.open(binding, 2);
      expect((await second.turn('What was the word?')).outcome).toEqual({ outcome: 'completed' });
      // session.bound is recorded right after the response that bound the session, whatever the engine sent next.
      const bound = second.frames.findIndex((f) => (f as { harness?: string }).harness === 'session.bound');
      expect(bound).toBeGreaterThan(0);
      expect(boundResponse(second.frames, bound - 1)).toBe(true);
      const events = second.translate(second.frames);
      const started = events.find((e) => e.draft.kind === 'session.started');
      expect(started?.draft.payload).toMatchObject({ generation: 2 });
      if (second.session!.binding.nativeSessionId === binding.nativeSessionId) {
        const origin = started?.draft.kind === 'session.started' ? started.draft.payload.origin : 'none';
        expect(['resume', 'load']).toContain(origin);
        // The engine sent the first turn's history with the second prompt.
        const history = JSON.stringify(
          model
            .modelRequests()
            .slice(before)
            .map((r) => r.body),
        );
        expect(history).toContain('pineapple');
      } else {
        // The engine could not continue its own session: agentlane says so and goes on with a new one.
        console.warn(`${name} could not continue its session after a restart; a new one was started`);
        expect(started?.draft.payload).toMatchObject({ origin: 'new' });
        const errors = events.filter((e) => e.draft.kind === 'harness.error').map((e) => e.draft.payload);
        expect(errors).toContainEqual(expect.objectContaining({ code: 'engine.error', fatal: false }));
        expect(errors.every((e) => (e as { fatal: boolean }).fatal === false)).toBe(true);
      }
    } finally {
      await second.close();
    }
  });
});

describe.runIf(ENGINES.includes('gemini'))(
  'Gemini CLI history replay after a restart',
  { timeout: 180_000 },
  () => {
    it('the replay streamed after the load response adds nothing to the new run', async () => {
      const model = await startFakeModelServer({ scenario: answer('Remember: pineapple.') });
      const workDir = mkdtempSync(join(root, 'gemini-replay-'));
      const driver = createDriver(
        presets.gemini({ entry: entries.gemini!, modelBaseUrl: model.url, homeRoot: join(root, 'homes') }),
      );
      const first = new DriverHarness(driver, workDir);
      try {
        await first.open();
        expect((await first.turn('Remember the word pineapple.')).outcome).toEqual({ outcome: 'completed' });
        const binding = first.session!.binding;
        await first.close();
        // Without this a restart within the same minute finds no session (see backdateGeminiSessions).
        expect(backdateGeminiSessions(join(root, 'homes'))).toBeGreaterThan(0);

        model.setScenario(answer('The word was pineapple.'));
        const second = new DriverHarness(driver, workDir);
        try {
          await second.open(binding, 2);
          expect((await second.turn('What was the word?')).outcome).toEqual({ outcome: 'completed' });
          expect(second.session!.binding.nativeSessionId).toBe(binding.nativeSessionId);
          // Gemini did replay the first turn, and after its load response.
          const frames = second.frames.map((f) => JSON.stringify(f));
          const response = frames.findIndex((f) => f.includes('"id":1,"result"'));
          expect(
            frames.findIndex((f, i) => i > response && f.includes('Remember: pineapple.')),
          ).toBeGreaterThan(0);
          const events = second.translate(second.frames);
          const texts = events.flatMap((e) =>
            e.draft.kind === 'message.completed' ? [e.draft.payload.text] : [],
          );
          expect(texts).toEqual(['What was the word?', 'The word was pineapple.']);
          const started = events.find((e) => e.draft.kind === 'session.started');
          expect(started?.draft.payload).toMatchObject({ origin: 'load', generation: 2 });
        } finally {
          await second.close();
        }
      } finally {
        await first.close();
        await model.close();
      }
    });
  },
);
