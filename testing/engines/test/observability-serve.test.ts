import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeModelServer } from '@agentlane/fake-model-server';
import { builtinServeConfig, startServeProcess } from '@agentlane/test-engines';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post, ThreadStream } from './opencode-stack';
import { answerApproval, done, readAudit } from './support/api';

// Planted where a careless log line would pick them up: the provider key in the config, the prompt in the
// request body, the model's answer in the events.
const KEY = 'sk-planted-observability-key-4f1c9a';
const PROMPT = 'PLANTED-PROMPT create greeting.txt please';
const OUTPUT = 'PLANTED-OUTPUT the file is written';

/** A Prometheus text exposition as series (name and labels as printed) → value. */
const series = (text: string) =>
  new Map(
    text
      .split('\n')
      .filter((l) => l && !l.startsWith('#'))
      .map((l) => [l.slice(0, l.lastIndexOf(' ')), Number(l.slice(l.lastIndexOf(' ') + 1))]),
  );

const cleanup: (() => Promise<void> | void)[] = [];
let serve: Awaited<ReturnType<typeof startServeProcess>>;
let threadId: string;
let runId: string;
let stream: ThreadStream;

beforeAll(async () => {
  const dir = await mkdtemp(join(tmpdir(), 'observability-'));
  const work = await mkdtemp(join(tmpdir(), 'observability-work-'));
  cleanup.push(
    () => rm(dir, { recursive: true, force: true }),
    () => rm(work, { recursive: true, force: true }),
  );
  const fake = await startFakeModelServer({
    script: [
      {
        text: 'Writing it.',
        toolCalls: [
          { name: 'write_file', arguments: { path: 'greeting.txt', content: 'hi\n' }, id: 'call_o1' },
        ],
        usage: { inputTokens: 31, outputTokens: 7 },
      },
      { text: OUTPUT, usage: { inputTokens: 45, outputTokens: 9 } },
    ],
  });
  cleanup.push(() => fake.close());
  const configPath = join(dir, 'agentlane.json');
  await writeFile(
    configPath,
    JSON.stringify(builtinServeConfig({ fakeUrl: fake.url, workDir: work, apiKey: KEY, plan: false })),
  );
  serve = await startServeProcess(
    ['--port', '0', '--db', join(dir, 'a.db'), '--config', configPath, '--log-level', 'info'],
    60_000,
    { ...process.env },
  );
  cleanup.push(() => serve.kill());

  const session = await post(`${serve.api}/sessions`, { engine: 'builtin', title: 'obs', workDir: work });
  threadId = (session.json as { session: { id: string } }).session.id;
  stream = new ThreadStream(`${serve.api}/threads/${threadId}/events`);
  cleanup.push(() => stream.close());
  await stream.waitFor((events) => events.some((e) => e.type === 'stream.opened'));
  const created = await post(`${serve.api}/threads/${threadId}/runs`, { prompt: PROMPT });
  runId = (created.json as { run: { runId: string } }).run.runId;
  await stream.waitFor((events) => events.some((e) => e.type === 'approval.requested'), 60_000);
  const asked = stream.canonical(runId).find((e) => e.type === 'approval.requested');
  const approvalId = asked?.event.kind === 'approval.requested' ? asked.event.payload.approvalId : '';
  await answerApproval(serve.api, runId, approvalId, 'allow');
  await stream.waitFor(done(runId), 60_000);
}, 120_000);

afterAll(async () => {
  for (const c of cleanup.reverse()) await c();
});

describe('agentlane serve: metrics, logs', () => {
  it('/metrics counts the run, its rows, its stream and its audit rows', async () => {
    const m = series(await (await fetch(`${serve.url}/metrics`)).text());
    for (const status of ['queued', 'running', 'completed'])
      expect(m.get(`agentlane_runs_total{engine="builtin",status="${status}"}`), status).toBe(1);
    const head = Math.max(...stream.events.flatMap((e) => ('event' in e ? [e.deliverySeq] : [])));
    expect(m.get('agentlane_events_ingested_total')).toBe(head);
    const { calls } = await readAudit(serve.api, threadId);
    expect(calls.length).toBe(3); // two model calls, one tool call
    expect(m.get('agentlane_audit_rows_written_total')).toBe(calls.length);
    expect(m.get('agentlane_open_streams')).toBe(1);
    expect(m.get('agentlane_outbox_depth')).toBe(0);
    expect(m.get('agentlane_canonicalization_lag_seconds_count')).toBe(1);
  });

  it('logs JSON lines with request, thread and run ids, and no key, prompt or output', async () => {
    await fetch(`${serve.api}/runs/${runId}`, { headers: { 'x-request-id': 'req-obs-1' } });
    await new Promise((r) => setTimeout(r, 200));
    const lines = serve
      .output()
      .split('\n')
      .filter((l) => l.trim().length > 0);
    const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(records.every((r) => typeof r.level === 'number' && typeof r.msg === 'string')).toBe(true);
    const mine = records.filter((r) => r.reqId === 'req-obs-1');
    expect(mine.map((r) => r.msg)).toEqual(['incoming request', 'request completed']);
    expect(mine[1]).toMatchObject({ runId, res: { statusCode: 200 } });
    expect(records.some((r) => r.threadId === threadId && r.msg === 'request completed')).toBe(true);
    const log = serve.output();
    expect(log).not.toContain(KEY);
    expect(log).not.toContain('PLANTED-PROMPT');
    expect(log).not.toContain('PLANTED-OUTPUT');
  });
});
