import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeModelServer } from '@agentlane/fake-model-server';
import { afterAll, describe, expect, it } from 'vitest';
import { startBuiltinStack } from './builtin-stack';
import { post, ThreadStream } from './opencode-stack';
import { answerApproval, type Canonical, done } from './support/api';

describe('built-in engine through the HTTP API: a provider that reuses tool-call ids', () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const c of cleanup.reverse()) await c();
  });

  it('both calls of two steps numbered call_0 get their own approval, answered through the API; the run completes', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'builtin-ids-'));
    const work = await mkdtemp(join(tmpdir(), 'builtin-ids-work-'));
    const fake = await startFakeModelServer({
      script: [
        { text: '1. Write both files' },
        { toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'a\n' }, id: 'call_0' }] },
        { toolCalls: [{ name: 'write_file', arguments: { path: 'b.txt', content: 'b\n' }, id: 'call_0' }] },
        { text: 'Both written.' },
      ],
    });
    const stack = await startBuiltinStack({
      db: join(dir, 'a.db'),
      workDir: work,
      api: 'openai-chat',
      baseURL: `${fake.url}/v1`,
    });
    cleanup.push(
      () => fake.close(),
      () => stack.stop(),
      () => rm(dir, { recursive: true, force: true }),
      () => rm(work, { recursive: true, force: true }),
    );
    const session = await post(`${stack.api}/sessions`, { engine: 'builtin', title: 'ids', workDir: work });
    const threadId = (session.json as { session: { id: string } }).session.id;
    const stream = new ThreadStream(`${stack.api}/threads/${threadId}/events`);
    const created = await post(`${stack.api}/threads/${threadId}/runs`, { prompt: 'write a and b' });
    const runId = (created.json as { run: { runId: string } }).run.runId;
    const approvals = () =>
      stream
        .canonical(runId)
        .flatMap((e: Canonical) =>
          e.event.kind === 'approval.requested' ? [e.event.payload.approvalId] : [],
        );
    for (const n of [1, 2]) {
      await stream.waitFor(() => new Set(approvals()).size >= n, 30_000);
      await answerApproval(stack.api, runId, approvals()[n - 1], 'allow');
    }
    await stream.waitFor(done(runId), 30_000);
    stream.close();
    expect(new Set(approvals()).size).toBe(2);
    expect(await readFile(join(work, 'a.txt'), 'utf8')).toBe('a\n');
    expect(await readFile(join(work, 'b.txt'), 'utf8')).toBe('b\n');
    const completed = stream.canonical(runId).find((e) => e.type === 'turn.completed');
    expect(completed?.event.payload).toMatchObject({ stopReason: 'end_turn' });
  }, 90_000);
});
