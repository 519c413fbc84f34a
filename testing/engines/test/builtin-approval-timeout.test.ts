import { access, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeModelServer } from '@agentlane/fake-model-server';
import { afterAll, describe, expect, it } from 'vitest';
import { startBuiltinStack } from './builtin-stack';
import { post, ThreadStream } from './opencode-stack';
import { type Canonical, done, readAudit } from './support/api';

describe('built-in engine through the HTTP API: an approval nobody answers', () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const c of cleanup.reverse()) await c();
  });

  it('is cancelled by system after the approval timeout; the call is not run, the run completes, a late answer gets 409', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'builtin-apr-'));
    const work = await mkdtemp(join(tmpdir(), 'builtin-apr-work-'));
    const fake = await startFakeModelServer({
      script: [
        { text: '1. Write the file' },
        { toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'a\n' } }] },
        { text: 'The write was not approved.' },
      ],
    });
    const stack = await startBuiltinStack({
      db: join(dir, 'a.db'),
      workDir: work,
      api: 'openai-chat',
      baseURL: `${fake.url}/v1`,
      approvalTimeoutMs: 400,
    });
    cleanup.push(
      () => fake.close(),
      () => stack.stop(),
      () => rm(dir, { recursive: true, force: true }),
      () => rm(work, { recursive: true, force: true }),
    );
    const session = await post(`${stack.api}/sessions`, { engine: 'builtin', title: 'apr', workDir: work });
    const threadId = (session.json as { session: { id: string } }).session.id;
    const stream = new ThreadStream(`${stack.api}/threads/${threadId}/events`);
    const created = await post(`${stack.api}/threads/${threadId}/runs`, { prompt: 'write a' });
    const runId = (created.json as { run: { runId: string } }).run.runId;
    await stream.waitFor(done(runId), 30_000);
    stream.close();
    const events = stream.canonical(runId).map((e: Canonical) => e.event);
    const requested = events.find((e) => e.kind === 'approval.requested');
    const resolved = events.find((e) => e.kind === 'approval.resolved');
    expect(resolved?.payload).toMatchObject({ outcome: 'cancelled', answeredBy: 'system' });
    // The call was not run, the model was told and answered: the run completed on its own.
    await expect(access(join(work, 'a.txt'))).rejects.toThrow();
    expect(events.find((e) => e.kind === 'turn.completed')?.payload).toMatchObject({
      stopReason: 'end_turn',
    });
    const texts = events.flatMap((e) => (e.kind === 'message.completed' ? [e.payload.text] : []));
    expect(texts).toContain('The write was not approved.');
    const audit = await readAudit(stack.api, threadId);
    const tool = audit.calls.find((c) => c.call_class === 'tool');
    expect(tool?.payload).toMatchObject({ approval: { decision: 'cancelled', answeredBy: 'system' } });
    // Too late: the request was resolved, the engine moved on.
    const approvalId = requested?.kind === 'approval.requested' ? requested.payload.approvalId : '';
    const late = await post(`${stack.api}/runs/${runId}/approvals/${approvalId}`, {
      outcome: 'selected',
      optionId: 'allow',
    });
    expect(late.status).toBe(409);
  }, 60_000);
});
