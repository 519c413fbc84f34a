import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { startFakeModelServer } from '@agentlane/fake-model-server';
import { builtinServeConfig, startServeProcess } from '@agentlane/test-engines';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post, ThreadStream } from './opencode-stack';
import { answerApproval, done, readAudit } from './support/api';
import { scratchDirs } from './support/scratch';

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

type OtlpValue = { stringValue?: string; intValue?: string | number; arrayValue?: { values: OtlpValue[] } };
type OtlpSpan = {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: { key: string; value: OtlpValue }[];
  status?: { code?: number };
};

/** A real OTLP/HTTP receiver: keeps every body POSTed to /v1/traces (the exporter's JSON encoding). */
async function startOtlpReceiver() {
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => {
      body += d;
    });
    req.on('end', () => {
      if (req.url === '/v1/traces' && req.method === 'POST') bodies.push(body);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  const spans = (): OtlpSpan[] =>
    bodies.flatMap((b) =>
      (JSON.parse(b) as { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] }).resourceSpans.flatMap(
        (r) => r.scopeSpans.flatMap((s) => s.spans),
      ),
    );
  return {
    url: `http://127.0.0.1:${port}`,
    bodies,
    spans,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

const attr = (span: OtlpSpan | undefined, key: string) => {
  const v = span?.attributes.find((a) => a.key === key)?.value;
  if (!v) return undefined;
  if (v.arrayValue) return v.arrayValue.values.map((x) => x.stringValue);
  return v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : undefined);
};

const cleanup: (() => Promise<void> | void)[] = [];
let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
let serve: Awaited<ReturnType<typeof startServeProcess>>;
let threadId: string;
let runId: string;
let stream: ThreadStream;

beforeAll(async () => {
  const { dir, work } = await scratchDirs('observability', cleanup);
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
  receiver = await startOtlpReceiver();
  cleanup.push(() => receiver.close());
  const configPath = join(dir, 'agentlane.json');
  await writeFile(
    configPath,
    JSON.stringify(builtinServeConfig({ fakeUrl: fake.url, workDir: work, apiKey: KEY, plan: false })),
  );
  serve = await startServeProcess(
    ['--port', '0', '--db', join(dir, 'a.db'), '--config', configPath, '--log-level', 'info'],
    60_000,
    { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '100' },
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

describe('agentlane serve: metrics, logs, traces', () => {
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

  it('exports GenAI spans over OTLP/HTTP: invoke_agent > chat, execute_tool; no content without capture', async () => {
    const deadline = Date.now() + 20_000;
    while (!receiver.spans().some((sp) => sp.name === 'invoke_agent builtin') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    const spans = receiver.spans();
    const root = spans.find((sp) => sp.name === 'invoke_agent builtin');
    expect(root, spans.map((sp) => sp.name).join(', ')).toBeDefined();
    expect(root?.parentSpanId || undefined).toBeUndefined();
    expect(attr(root, 'gen_ai.operation.name')).toBe('invoke_agent');
    expect(attr(root, 'gen_ai.agent.name')).toBe('builtin');
    expect(attr(root, 'gen_ai.conversation.id')).toBe(threadId);
    expect(attr(root, 'agentlane.run.id')).toBe(runId);
    const children = spans.filter((sp) => sp.parentSpanId === root?.spanId);
    expect(children.every((sp) => sp.traceId === root?.traceId)).toBe(true);
    const chats = children.filter((sp) => attr(sp, 'gen_ai.operation.name') === 'chat');
    expect(chats.map((c) => c.name)).toEqual(['chat fake-model', 'chat fake-model']);
    expect(chats.map((c) => attr(c, 'gen_ai.request.model'))).toEqual(['fake-model', 'fake-model']);
    expect(chats.map((c) => attr(c, 'gen_ai.usage.input_tokens'))).toEqual([31, 45]);
    expect(chats.map((c) => attr(c, 'gen_ai.usage.output_tokens'))).toEqual([7, 9]);
    expect(chats.every((c) => typeof attr(c, 'gen_ai.provider.name') === 'string')).toBe(true);
    expect(chats.every((c) => attr(c, 'gen_ai.conversation.id') === threadId)).toBe(true);
    const tools = children.filter((sp) => attr(sp, 'gen_ai.operation.name') === 'execute_tool');
    expect(tools.map((t) => [t.name, attr(t, 'gen_ai.tool.call.id')])).toEqual([
      ['execute_tool write_file', 'call_o1'],
    ]);
    // Children lie within the run.
    for (const child of children) {
      expect(BigInt(child.startTimeUnixNano) >= BigInt(root?.startTimeUnixNano ?? 0)).toBe(true);
      expect(BigInt(child.endTimeUnixNano) <= BigInt(root?.endTimeUnixNano ?? 0)).toBe(true);
    }
    // The tool ran between the two model calls.
    expect(BigInt(tools[0]?.startTimeUnixNano ?? 0) >= BigInt(chats[0]?.startTimeUnixNano ?? 0)).toBe(true);
    const raw = receiver.bodies.join('\n');
    expect(raw).not.toContain('PLANTED-PROMPT');
    expect(raw).not.toContain('PLANTED-OUTPUT');
    expect(raw).not.toContain('greeting.txt');
    expect(raw).not.toContain(KEY);
  });
});
