import { retryDelayMs } from '@agentlane/runtime/internal';
import { describe, expect, it } from 'vitest';
import { chatDriver, fakeModelAndWorkspace, runTurn } from './harness';

const env = fakeModelAndWorkspace('rt-stream-');

const drive = (api: string, path: string, over: Record<string, unknown> = {}) =>
  chatDriver(env.fake.url, { api, baseURL: `${env.fake.url}${path}`, workspaceTools: false, ...over });

const modelRow = (r: Awaited<ReturnType<typeof runTurn>>) => r.audit.find((a) => a.call_class === 'model');

describe('a model stream cut short', () => {
  it('Anthropic without message_stop fails the turn instead of ending it as end_turn', async () => {
    // The reply's last frame is message_stop: everything else (message_delta with end_turn included) comes.
    env.fake.setScenario([{ text: 'half an answer', misbehave: { truncateAfter: 6 } }]);
    const r = await runTurn(drive('anthropic', '/v1'), { prompt: 'hi', workDir: env.work });
    expect(r.outcome.outcome).toBe('failed');
    expect(r.outcome.error).toMatch(/without its final message_stop event/);
    const done = r.events.find((e) => e.draft.kind === 'turn.completed');
    expect(done?.draft.payload).toMatchObject({ stopReason: 'error' });
    expect(modelRow(r)).toMatchObject({ status: 'error' });
  });

  it('a complete Anthropic stream still completes', async () => {
    env.fake.setScenario([{ text: 'a whole answer' }]);
    const r = await runTurn(drive('anthropic', '/v1'), { prompt: 'hi', workDir: env.work });
    expect(r.outcome.outcome).toBe('completed');
  });
});

describe.each([
  ['openai-chat', '/v1'],
  ['anthropic', '/v1'],
])('the engine’s own stall limits (%s)', (api, path) => {
  const limits = { modelTimeouts: { firstByteMs: 400, idleMs: 300 } };

  it('silence after a few events ends the call with an error that says it timed out', async () => {
    env.fake.setScenario([{ text: 'a b c d e f g h', chunkSize: 2, misbehave: { stallAfter: 3 } }]);
    const started = Date.now();
    const r = await runTurn(drive(api, path, limits), { prompt: 'hi', workDir: env.work });
    expect(r.outcome.outcome).toBe('failed');
    expect(r.outcome.error).toMatch(/timed out: no stream event for 300 ms/);
    expect(r.outcome.error).not.toMatch(/Failed to process successful response/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('keep-alives are not progress: a stream of nothing but keep-alives times out too', async () => {
    env.fake.setScenario([{ text: 'a b c d', misbehave: { stallAfter: 2, keepAliveMs: 50 } }]);
    const r = await runTurn(drive(api, path, limits), { prompt: 'hi', workDir: env.work });
    expect(r.outcome.outcome).toBe('failed');
    expect(r.outcome.error).toMatch(/timed out: no stream event for 300 ms/);
  });

  it('no headers within the first-byte limit: timed out, not a connection error', async () => {
    env.fake.setScenario([{ text: 'late', misbehave: { headersDelayMs: 1_500 } }]);
    const r = await runTurn(drive(api, path, limits), { prompt: 'hi', workDir: env.work });
    expect(r.outcome.outcome).toBe('failed');
    expect(r.outcome.error).toMatch(/timed out: no response for 400 ms/);
  });

  it('headers, then nothing but keep-alives: the first-byte limit still runs', async () => {
    env.fake.setScenario([{ text: 'x', misbehave: { stallAfter: 0, keepAliveMs: 50 } }]);
    const r = await runTurn(drive(api, path, limits), { prompt: 'hi', workDir: env.work });
    expect(r.outcome.outcome).toBe('failed');
    expect(r.outcome.error).toMatch(/timed out: no response for 400 ms/);
  });

  it('a slow stream that keeps sending events is not cut', async () => {
    // 16 chunks 100 ms apart: the stream lasts longer than the idle limit, each gap a tenth of it (a loaded
    // CI run once stalled the event loop for more than the 200 ms of margin the shared limits leave).
    const slow = { modelTimeouts: { firstByteMs: 3_000, idleMs: 1_000 } };
    env.fake.setScenario([
      { text: 'one two three four '.repeat(4).slice(0, 64), chunkSize: 4, chunkDelayMs: 100 },
    ]);
    const r = await runTurn(drive(api, path, slow), { prompt: 'hi', workDir: env.work });
    expect(r.outcome.outcome).toBe('completed');
  });
});

describe('rate limits', () => {
  const limited = (retryAfter?: string) => ({
    error: {
      status: 429,
      message: 'slow down',
      type: 'rate_limit_error',
      ...(retryAfter ? { retryAfter } : {}),
    },
  });

  it('a 429 with Retry-After is sent again after the wait it names', async () => {
    env.fake.setScenario([limited('1'), { text: 'after the wait' }]);
    const before = env.fake.modelRequests().length;
    const started = Date.now();
    const r = await runTurn(drive('openai-chat', '/v1'), { prompt: 'hi', workDir: env.work });
    expect(r.outcome.outcome).toBe('completed');
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(env.fake.modelRequests().length - before).toBe(2);
    expect(modelRow(r)).toMatchObject({ status: 'ok', http_status: 200 });
  });

  it('a Retry-After longer than the cap waits the cap; the attempts are bounded', async () => {
    env.fake.setScenario([limited('3600')]);
    const before = env.fake.modelRequests().length;
    const started = Date.now();
    const r = await runTurn(
      drive('anthropic', '/v1', { rateLimitRetries: { attempts: 2, maxDelayMs: 100 } }),
      { prompt: 'hi', workDir: env.work },
    );
    expect(r.outcome.outcome).toBe('failed');
    expect(r.outcome.error).toMatch(/slow down/);
    expect(env.fake.modelRequests().length - before).toBe(3);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(modelRow(r)).toMatchObject({ status: 'error', http_status: 429 });
  });

  it('reads Retry-After as seconds, as an HTTP date and as retry-after-ms', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryDelayMs(new Headers({ 'retry-after': '2' }), now)).toBe(2000);
    expect(retryDelayMs(new Headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:05 GMT' }), now)).toBe(5000);
    expect(retryDelayMs(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }), now)).toBe(250);
    expect(retryDelayMs(new Headers({ 'retry-after': 'soon' }), now)).toBeNull();
    expect(retryDelayMs(new Headers(), now)).toBeNull();
  });

  it('refuses timeouts and retries that are not integers', () => {
    expect(() => drive('openai-chat', '/v1', { modelTimeouts: { idleMs: 0 } })).toThrow(/idleMs/);
    expect(() => drive('openai-chat', '/v1', { rateLimitRetries: { attempts: 1.5 } })).toThrow(/attempts/);
  });
});
