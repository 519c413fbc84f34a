import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeModelServer } from '@agentlane/fake-model-server';
import { afterAll, describe, expect, it } from 'vitest';
import { startBuiltinStack } from './builtin-stack';
import { post, ThreadStream } from './opencode-stack';

type ChatMessage = { role: string; content?: unknown; tool_calls?: unknown[] };

async function runPrompt(api: string, threadId: string, prompt: string, approve: boolean) {
  const stream = new ThreadStream(`${api}/threads/${threadId}/events`);
  const created = await post(`${api}/threads/${threadId}/runs`, { prompt });
  const runId = (created.json as { run: { runId: string } }).run.runId;
  if (approve) {
    await stream.waitFor((events) => events.some((e) => e.type === 'approval.requested'), 30_000);
    const asked = stream.canonical(runId).find((e) => e.type === 'approval.requested');
    const approvalId = asked?.event.kind === 'approval.requested' ? asked.event.payload.approvalId : '';
    await post(`${api}/runs/${runId}/approvals/${approvalId}`, { outcome: 'selected', optionId: 'allow' });
  }
  await stream.waitFor(
    (events) => events.some((e) => e.type === 'run.canonicalized' && e.runId === runId),
    30_000,
  );
  stream.close();
  return stream.canonical(runId);
}

describe('built-in engine resumes a thread from its latest checkpoint', () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const c of cleanup.reverse()) await c();
  });

  it('after agentlane restarts, the next prompt sends the whole conversation', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'builtin-resume-'));
    const work = await mkdtemp(join(tmpdir(), 'builtin-resume-work-'));
    cleanup.push(
      () => rm(dir, { recursive: true, force: true }),
      () => rm(work, { recursive: true, force: true }),
    );
    const histories: ChatMessage[][] = [];
    const fake = await startFakeModelServer({
      scenario: (request) => {
        const body = request.body as { messages?: ChatMessage[]; tools?: unknown[] };
        const planning = !body.tools;
        if (request.lastUserPrompt === 'What did you write?') {
          if (!planning) histories.push(body.messages ?? []);
          return { text: planning ? '1. Recall the file' : 'I wrote hello.txt.' };
        }
        if (planning) return { text: '1. Write hello.txt' };
        if (request.toolResultsSinceUserPrompt === 0)
          return {
            toolCalls: [
              { name: 'write_file', arguments: { path: 'hello.txt', content: 'hi\n' }, id: 'call_r1' },
            ],
          };
        return { text: 'Written.' };
      },
    });
    cleanup.push(() => fake.close());
    const db = join(dir, 'a.db');
    const first = await startBuiltinStack({
      db,
      workDir: work,
      api: 'openai-chat',
      baseURL: `${fake.url}/v1`,
    });
    const session = await post(`${first.api}/sessions`, {
      engine: 'builtin',
      title: 'resume',
      workDir: work,
    });
    const threadId = (session.json as { session: { id: string } }).session.id;
    await runPrompt(first.api, threadId, 'Create hello.txt', true);
    await first.stop();

    // A new process: nothing in memory, the conversation comes from the latest checkpoint.
    const second = await startBuiltinStack({
      db,
      workDir: work,
      api: 'openai-chat',
      baseURL: `${fake.url}/v1`,
    });
    cleanup.push(() => second.stop());
    const events = await runPrompt(second.api, threadId, 'What did you write?', false);
    expect(events.find((e) => e.type === 'turn.completed')?.event.payload).toMatchObject({
      stopReason: 'end_turn',
    });
    const history = histories[0] ?? [];
    const roles = history.filter((m) => m.role !== 'system').map((m) => m.role);
    expect(roles).toEqual(['user', 'assistant', 'tool', 'assistant', 'user']);
    expect(JSON.stringify(history)).toContain('Create hello.txt');
    expect(JSON.stringify(history)).toContain('call_r1');
    expect(JSON.stringify(history)).toContain('Written.');
  }, 90_000);
});
