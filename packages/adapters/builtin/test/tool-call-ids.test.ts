import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { allowAndRecord, chatDriver, fakeModelAndWorkspace, runTurn } from './harness';

const env = fakeModelAndWorkspace('rt-ids-');

/** A server that numbers tool calls per message: every step's first call is `call_0` again. */
const reusing = (second: { name: string; arguments: Record<string, unknown> }) => [
  { toolCalls: [{ name: 'list_files', arguments: {}, id: 'call_0' }] },
  { toolCalls: [{ ...second, id: 'call_0' }] },
  { text: 'Both done.' },
];

describe.each([
  ['openai-chat', '/v1'],
  ['anthropic', '/v1'],
])('tool-call ids a provider reuses across steps (%s)', (api, path) => {
  const driver = () => chatDriver(env.fake.url, { api, baseURL: `${env.fake.url}${path}` });

  const started = (r: Awaited<ReturnType<typeof runTurn>>) =>
    r.events.flatMap((e) =>
      e.draft.kind === 'tool.started' ? [(e.draft.payload as { toolCallId: string }).toolCallId] : [],
    );

  it('without approval: each call keeps its own events and result', async () => {
    env.fake.setScenario(reusing({ name: 'list_files', arguments: { path: '.' } }));
    const r = await runTurn(driver(), { prompt: 'list twice', workDir: env.work });
    expect(r.outcome.outcome).toBe('completed');
    const ids = started(r);
    expect(ids).toHaveLength(2);
    expect(new Set(ids).size).toBe(2);
    const completed = r.events.filter((e) => e.draft.kind === 'tool.completed');
    expect(completed.map((e) => (e.draft.payload as { toolCallId: string }).toolCallId)).toEqual(ids);
    const toolRows = r.audit.filter((a) => a.call_class === 'tool');
    expect(toolRows.map((a) => (a.payload as { toolCallId: string }).toolCallId)).toEqual(ids);
    // The last request carries both results, each under its own id, in a history the provider accepts.
    const last = JSON.stringify(env.fake.modelRequests().at(-1)?.body);
    for (const id of ids) expect(last).toContain(id);
  });

  it('with approval: the second call gets its own card, its answer reaches it, the run finishes', async () => {
    env.fake.setScenario(reusing({ name: 'write_file', arguments: { path: 'ids.txt', content: 'two\n' } }));
    const { asked, approve } = allowAndRecord();
    const r = await runTurn(driver(), { prompt: 'list, then write', workDir: env.work, approve });
    expect(r.outcome.outcome).toBe('completed');
    const requested = r.events.filter((e) => e.draft.kind === 'approval.requested');
    expect(requested).toHaveLength(1);
    const approvalId = (requested[0]?.draft.payload as { approvalId?: string } | undefined)?.approvalId;
    expect(asked).toEqual([approvalId]);
    // Not the first call's id: the card belongs to the write.
    const ids = started(r);
    expect(approvalId).toBe(`apr-${ids[1]}`);
    expect(ids[0]).not.toBe(ids[1]);
    expect(await readFile(join(env.work, 'ids.txt'), 'utf8')).toBe('two\n');
    const resolved = r.events.filter((e) => e.draft.kind === 'approval.resolved');
    expect(resolved.map((e) => (e.draft.payload as { approvalId: string }).approvalId)).toEqual([approvalId]);
  });
});
