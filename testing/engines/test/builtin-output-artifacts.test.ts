import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeModelServer } from '@agentlane/fake-model-server';
import { afterAll, describe, expect, it } from 'vitest';
import { startBuiltinStack } from './builtin-stack';
import { post, ThreadStream } from './opencode-stack';
import { type Canonical, done } from './support/api';

const LONG = Array.from({ length: 6000 }, (_, i) => `line ${i} ${'y'.repeat(70)}\n`).join('');

describe('built-in engine through the HTTP API: output past its bounds is a served artifact', () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const c of cleanup.reverse()) await c();
  });

  it('a model answer and a command output past their bounds: GET /artifacts/:id serves the rest, with Range', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'builtin-out-'));
    const work = await mkdtemp(join(tmpdir(), 'builtin-out-work-'));
    const fake = await startFakeModelServer({
      script: [
        { text: '1. Print, then answer' },
        {
          toolCalls: [
            { name: 'run_command', arguments: { command: "head -c 200000 /dev/zero | tr '\\0' c" } },
          ],
        },
        { text: LONG, chunkSize: 32_768 },
      ],
    });
    const stack = await startBuiltinStack({
      db: join(dir, 'a.db'),
      workDir: work,
      api: 'openai-chat',
      baseURL: `${fake.url}/v1`,
      driverConfig: {
        turnTextBytes: 20_000,
        outputDir: join(dir, 'overflow'),
        workspaceTools: { approveCommands: false, maxCommandOutputBytes: 5_000 },
      },
    });
    cleanup.push(
      () => fake.close(),
      () => stack.stop(),
      () => rm(dir, { recursive: true, force: true }),
      () => rm(work, { recursive: true, force: true }),
    );
    const session = await post(`${stack.api}/sessions`, { engine: 'builtin', title: 'out', workDir: work });
    const threadId = (session.json as { session: { id: string } }).session.id;
    const stream = new ThreadStream(`${stack.api}/threads/${threadId}/events`);
    const created = await post(`${stack.api}/threads/${threadId}/runs`, { prompt: 'print and talk' });
    const runId = (created.json as { run: { runId: string } }).run.runId;
    await stream.waitFor(done(runId), 30_000);
    stream.close();
    const events = stream.canonical(runId).map((e: Canonical) => e.event);
    expect(events.find((e) => e.kind === 'turn.completed')?.payload).toMatchObject({
      stopReason: 'end_turn',
    });
    const artifacts = events.flatMap((e) => (e.kind === 'artifact.created' ? [e.payload] : []));
    expect(artifacts.map((a) => a.name)).toEqual([
      expect.stringMatching(/^output of head -c 200000/),
      expect.stringMatching(/^answer past turnTextBytes/),
    ]);
    const [command, answer] = artifacts;
    // The command's rest: 195,000 bytes of "c", served whole with its sha256 as ETag.
    const res = await fetch(`${stack.api}/artifacts/${command?.artifact.id}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toBe(`"${command?.artifact.sha256}"`);
    const body = Buffer.from(await res.arrayBuffer());
    expect(body.equals(Buffer.alloc(195_000, 'c'))).toBe(true);
    // The answer: the shown part and the served rest make the whole text.
    const shown = events.flatMap((e) => (e.kind === 'message.delta' ? [e.payload.delta] : [])).join('');
    const rest = await (await fetch(`${stack.api}/artifacts/${answer?.artifact.id}`)).text();
    expect(shown.length).toBeGreaterThan(0);
    expect(Buffer.byteLength(shown)).toBeLessThanOrEqual(20_000);
    expect(shown + rest).toBe(LONG);
    expect(createHash('sha256').update(rest).digest('hex')).toBe(answer?.artifact.sha256);
    const range = await fetch(`${stack.api}/artifacts/${answer?.artifact.id}`, {
      headers: { range: 'bytes=10-19' },
    });
    expect(range.status).toBe(206);
    expect(await range.text()).toBe(rest.slice(10, 20));
  }, 60_000);
});
