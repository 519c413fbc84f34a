// Measures what one command printing 50 MB costs the engine: RSS growth and the bytes of native frames
// (what the source lane stores) and of canonical events. Run: node --conditions=agentlane-source --import tsx packages/adapters/builtin/scripts/measure-output-volume.ts (MB=50)
// TEXT=1: a model answer of MB megabytes instead (and the size of the checkpoint the turn leaves);
// TEXT_BOUND=1000000000 lifts the engine's bound on it.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemorySaver } from '@agentlane/checkpoints';
import { startFakeModelServer } from '@agentlane/fake-model-server';
import { createDriver, runtimeTranslator } from '../src/index';

const MB = Number(process.env.MB ?? 50);
const TEXT = process.env.TEXT === '1';
const answer = TEXT ? `${'z'.repeat(99)}\n`.repeat(MB * 10_000) : '';
const fake = await startFakeModelServer({
  script: TEXT
    ? [{ text: answer, chunkSize: 65_536 }]
    : [
        {
          toolCalls: [
            {
              name: 'run_command',
              arguments: { command: `head -c ${MB * 1e6} /dev/zero | tr '\\0' a | fold -w 100` },
              id: 'call_big',
            },
          ],
        },
        { text: 'done' },
      ],
});
const saver = createMemorySaver();
const work = await mkdtemp(join(tmpdir(), 'rt-volume-'));
const driver = createDriver({
  api: 'openai-chat',
  model: 'fake-model',
  baseURL: `${fake.url}/v1`,
  apiKey: 'k',
  plan: false,
  workspaceTools: { approveCommands: false },
  checkpoints: saver,
  // TEXT_BOUND: the turn's model text bound (default the engine's 1 MB; 1e9 shows the unbounded cost).
  ...(process.env.TEXT_BOUND ? { turnTextBytes: Number(process.env.TEXT_BOUND) } : {}),
});
global.gc?.();
const rss0 = process.memoryUsage().rss;
let peak = rss0;
const timer = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage().rss);
}, 20);
let frameBytes = 0;
const frames: unknown[] = [];
const session = await driver.openSession({ threadId: 'thr_m', workDir: work, generation: 1, emit: () => {} });
const emit = (f: unknown) => {
  frameBytes += JSON.stringify(f).length;
  frames.push(f);
};
const outcome = await session.runTurn(
  { threadId: 'thr_m', runId: 'run_m', turnId: 'run_m', prompt: 'print a lot' },
  {
    emit: emit as never,
    signal: new AbortController().signal,
    awaitApproval: async () => ({ outcome: 'selected', optionId: 'allow' }),
    awaitQuestion: async () => ({ outcome: 'cancelled' }),
  },
);
clearInterval(timer);
peak = Math.max(peak, process.memoryUsage().rss);
const ctx = { threadId: 'thr_m', runId: 'run_m', turnId: 'run_m', provider: 'builtin' };
let state = runtimeTranslator.initialState(ctx);
let eventCount = 0;
let eventBytes = 0;
frames.forEach((frame, i) => {
  const step = runtimeTranslator.translate(
    { runId: 'run_m', nativeSeq: i + 1, receivedAt: new Date().toISOString(), frame: frame as never },
    state,
    ctx,
  );
  state = step.state;
  eventCount += step.events.length;
  for (const e of step.events) eventBytes += JSON.stringify(e.draft).length;
});
const events = { length: eventCount };
console.log(
  JSON.stringify({
    MB,
    outcome: outcome.outcome,
    frames: frames.length,
    frameMB: +(frameBytes / 1e6).toFixed(1),
    events: events.length,
    eventMB: +(eventBytes / 1e6).toFixed(1),
    rssGrowthMB: +((peak - rss0) / 1e6).toFixed(0),
    checkpointMB: +(JSON.stringify((await saver.getLatest('thr_m')) ?? null).length / 1e6).toFixed(2),
  }),
);
await fake.close();
await rm(work, { recursive: true, force: true });
