import { createMemorySaver } from '@agentlane/checkpoints';
import { describe, expect, it } from 'vitest';
import { chatDriver, fakeModelAndWorkspace, runTurn } from './harness';

const env = fakeModelAndWorkspace('rt-history-');

type Message = { role: string; content: unknown };
const messagesOf = (i: number) =>
  ((env.fake.modelRequests().at(i)?.body as { messages?: Message[] } | undefined)?.messages ?? []).filter(
    (m) => m.role !== 'system',
  );
const text = (m: Message | undefined) => JSON.stringify(m?.content ?? null);

/**
 * Two turns of one thread in two driver sessions (as after a restart): the second loads the conversation
 * from the checkpoint the first left.
 */
async function twoTurns(
  first: Parameters<typeof env.fake.setScenario>[0],
  over: Record<string, unknown> = {},
) {
  const saver = createMemorySaver();
  const driver = () =>
    chatDriver(env.fake.url, { checkpoints: saver, workspaceTools: { approveWrites: false }, ...over });
  env.fake.setScenario(first);
  const r1 = await runTurn(driver(), { prompt: 'first prompt', workDir: env.work });
  env.fake.setScenario([{ text: 'second answer' }]);
  const r2 = await runTurn(driver(), { prompt: 'second prompt', workDir: env.work });
  return { r1, r2, sent: messagesOf(-1) };
}

describe('the history after a failed or empty turn', () => {
  it('a failed turn: the next request carries its prompt and its partial text', async () => {
    const { r1, r2, sent } = await twoTurns(
      [{ text: 'partial words here', chunkSize: 4, misbehave: { stallAfter: 4 } }],
      { modelTimeouts: { idleMs: 300 } },
    );
    expect(r1.outcome.outcome).toBe('failed');
    expect(r2.outcome.outcome).toBe('completed');
    expect(sent.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(text(sent[0])).toContain('first prompt');
    expect(text(sent[1])).toContain('partial w');
    expect(text(sent[2])).toContain('second prompt');
  });

  it('a failed turn without text: one user message with both prompts, never two in a row', async () => {
    const { r1, sent } = await twoTurns([{ error: { status: 400, message: 'bad request' } }]);
    expect(r1.outcome.outcome).toBe('failed');
    expect(sent.map((m) => m.role)).toEqual(['user']);
    expect(text(sent[0])).toContain('first prompt');
    expect(text(sent[0])).toContain('second prompt');
  });

  it('an empty answer: no two user messages in a row', async () => {
    const { r1, sent } = await twoTurns([{ text: '' }]);
    expect(r1.outcome.outcome).toBe('completed');
    expect(sent.map((m) => m.role)).toEqual(['user']);
    expect(text(sent[0])).toContain('first prompt');
  });

  it('calls a cancelled step never ran get an error result, so the next request is one providers accept', async () => {
    const saver = createMemorySaver();
    const driver = () =>
      chatDriver(env.fake.url, { checkpoints: saver, workspaceTools: { approveCommands: false } });
    env.fake.setScenario([
      {
        toolCalls: [
          { name: 'run_command', arguments: { command: 'sleep 5' }, id: 'call_slow' },
          { name: 'list_files', arguments: {}, id: 'call_next' },
        ],
      },
    ]);
    const abort = new AbortController();
    const r1 = await runTurn(driver(), {
      prompt: 'first prompt',
      workDir: env.work,
      signal: abort.signal,
      onFrame: (f) => {
        if ((f as { rt?: string }).rt === 'tool.start') setTimeout(() => abort.abort(), 50);
      },
    });
    expect(r1.outcome.outcome).toBe('cancelled');
    env.fake.setScenario([{ text: 'second answer' }]);
    await runTurn(driver(), { prompt: 'second prompt', workDir: env.work });
    const sent = messagesOf(-1);
    expect(sent.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'user']);
    expect(JSON.stringify(sent)).toContain('not run: the turn was cancelled first');
  });
});

describe('absent token counts', () => {
  it.each([
    ['openai-chat', '/v1'],
    ['openai-responses', '/v1'],
    ['google', '/v1beta'],
  ])(
    'a provider that reports no usage (%s): absent in usage.updated and the ledger rows, not 0',
    async (api, path) => {
      const omitUsage = { misbehave: { omitUsage: true } };
      env.fake.setScenario([
        { toolCalls: [{ name: 'list_files', arguments: { path: '.' }, id: 'call_ls' }], ...omitUsage },
        { text: 'no usage here', ...omitUsage },
      ]);
      const r = await runTurn(chatDriver(env.fake.url, { api, baseURL: `${env.fake.url}${path}` }), {
        prompt: 'hi',
        workDir: env.work,
      });
      expect(r.outcome.outcome).toBe('completed');
      const usage = r.events.filter((e) => e.draft.kind === 'usage.updated').map((e) => e.draft.payload);
      // Two steps and the turn.
      expect(usage).toHaveLength(3);
      for (const u of usage) {
        for (const k of [
          'inputTokens',
          'outputTokens',
          'totalTokens',
          'reasoningTokens',
          'cachedInputTokens',
        ])
          expect(u).not.toHaveProperty(k);
      }
      const rows = r.audit.filter((a) => a.call_class === 'model');
      expect(rows).toHaveLength(2);
      for (const row of rows) expect(row.payload).not.toHaveProperty('usage');
    },
  );

  it('Anthropic, whose Messages API requires usage: a stream without it fails the call, no counts are made up', async () => {
    env.fake.setScenario([{ text: 'no usage here', misbehave: { omitUsage: true } }]);
    const r = await runTurn(chatDriver(env.fake.url, { api: 'anthropic', baseURL: `${env.fake.url}/v1` }), {
      prompt: 'hi',
      workDir: env.work,
    });
    expect(r.outcome).toMatchObject({ outcome: 'failed', error: expect.stringMatching(/usage/) });
    expect(r.events.some((e) => e.draft.kind === 'usage.updated' && 'inputTokens' in e.draft.payload)).toBe(
      false,
    );
  });
});
