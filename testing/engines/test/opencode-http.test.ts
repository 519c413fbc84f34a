import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createDriver, type OpenCodeDriver } from '@agentlane/adapter-opencode';
import {
  type FakeModelServer,
  scripted,
  slowStream,
  toolThenAnswer,
  writeFileTool,
} from '@agentlane/fake-model-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCodeBinaryOrReason } from './opencode-harness';
import { post, rawBesideFrames, startStack, ThreadStream } from './opencode-stack';
import { APPROVED_WRITE_KINDS, answerApproval, done, expectKinds } from './support/api';
import { type Fixture, startFixture } from './support/fixture';
import { openCodeConfig } from './support/opencode-config';

const { binary, reason } = openCodeBinaryOrReason();
if (reason) console.warn(`[skip] OpenCode HTTP end-to-end tests: ${reason}`);

type Run = { run: { runId: string } };

describe.skipIf(!binary)('OpenCode end to end through agentlane’s HTTP API', () => {
  let fixture: Fixture;
  let fake: FakeModelServer;
  let dir: string;
  let work: string;
  let driver: OpenCodeDriver;
  let stack: Awaited<ReturnType<typeof startStack>>;
  let threadId: string;

  const boot = async () => {
    driver = createDriver({
      binary,
      home: join(dir, 'opencode-home'),
      config: openCodeConfig(fake, { secondModel: true }),
      settleMs: 150,
    });
    stack = await startStack({ db: join(dir, 'agentlane.db'), drivers: [driver], workDir: work });
  };

  beforeAll(async () => {
    fixture = await startFixture('agentlane-oc-http');
    ({ fake, dir, work } = fixture);
    await boot();
  }, 60_000);

  afterAll(async () => {
    await stack?.stop();
    await driver?.dispose();
    await fixture?.close();
  });

  it('a prompt writes a file after the approval is answered through the API', async () => {
    const target = join(work, 'hello.txt');
    fake.setScenario(toolThenAnswer({ tool: writeFileTool(target, 'Hello over HTTP!\n'), answer: 'Done.' }));
    const session = await post(`${stack.api}/sessions`, { engine: 'opencode', title: 'e2e', workDir: work });
    expect(session.status).toBe(201);
    threadId = (session.json as { session: { id: string } }).session.id;
    const stream = new ThreadStream(`${stack.api}/threads/${threadId}/events`);
    const created = await post(`${stack.api}/threads/${threadId}/runs`, {
      prompt: 'Create hello.txt',
      model: 'fake/fake-model-2',
    });
    expect(created.status).toBe(201);
    const runId = (created.json as Run).run.runId;
    await stream.waitFor((events) => events.some((e) => e.type === 'approval.requested'));
    const asked = stream.events.find((e) => e.type === 'approval.requested');
    const approvalId =
      asked && 'event' in asked && asked.event.kind === 'approval.requested'
        ? asked.event.payload.approvalId
        : '';
    await answerApproval(stack.api, runId, approvalId, 'once');
    await stream.waitFor(done(runId));
    stream.close();

    expect(await readFile(target, 'utf8')).toBe('Hello over HTTP!\n');
    expect(fake.modelRequests().map((r) => r.model)).toContain('fake-model-2');
    const events = stream.canonical(runId);
    const kinds = events.map((e) => e.type);
    expectKinds(kinds, [
      'session.started',
      'turn.started',
      'reasoning.delta',
      'message.delta',
      ...APPROVED_WRITE_KINDS,
      'message.completed',
      'turn.completed',
    ]);
    const resolved = events.find((e) => e.type === 'approval.resolved');
    expect(resolved?.event.payload).toMatchObject({ approvalId, outcome: 'selected', optionId: 'once' });
    expect(events.find((e) => e.type === 'turn.completed')?.event.payload).toMatchObject({
      stopReason: 'end_turn',
    });
    expect(events.filter((e) => e.type === 'turn.completed')).toHaveLength(1);
    console.info(`[opencode e2e] canonical kinds: ${[...new Set(kinds)].join(', ')}`);

    // The raw sidecar holds each event's SSE `data:` text as OpenCode sent it, next to its parsed frame.
    const stored = await rawBesideFrames(stack.store, runId);
    // SSE events: frames with a type that are neither harness frames nor recorded HTTP responses.
    const isEvent = (f: unknown) => {
      const o = f as { type?: unknown; harness?: unknown };
      return typeof o.type === 'string' && o.harness === undefined && o.type !== 'agentlane.http.response';
    };
    const sse = stored.filter((r) => isEvent(r.frame));
    expect(sse.length).toBeGreaterThan(5);
    for (const r of stored) {
      if (!sse.includes(r)) expect(r.storage).toBeNull();
      else if (r.storage === 'inline') expect(JSON.parse(r.text ?? '')).toEqual(r.frame);
      else expect(r.storage === 'artifact' && r.bytes > 8 * 1024).toBe(true);
    }
    expect(sse.some((r) => r.text?.includes('"permission.asked"'))).toBe(true);
  }, 300_000);

  it('run.cancel mid-turn aborts the OpenCode session', async () => {
    fake.setScenario(slowStream({ chunks: 400, delayMs: 50 }));
    const stream = new ThreadStream(`${stack.api}/threads/${threadId}/events`);
    const created = await post(`${stack.api}/threads/${threadId}/runs`, { prompt: 'Talk slowly' });
    const runId = (created.json as Run).run.runId;
    await stream.waitFor((events) =>
      events.some((e) => 'event' in e && e.event.runId === runId && e.type === 'message.delta'),
    );
    expect((await post(`${stack.api}/runs/${runId}/cancel`, {})).status).toBe(202);
    await stream.waitFor(done(runId));
    stream.close();
    const completed = stream.canonical(runId).filter((e) => e.type === 'turn.completed');
    expect(completed).toHaveLength(1);
    expect(completed[0]?.event.payload).toMatchObject({ stopReason: 'cancelled' });
  }, 300_000);

  it('todos become plan.updated and a question is answered through the API', async () => {
    fake.setScenario(
      scripted([
        {
          text: 'Planning first.',
          toolCalls: [
            {
              name: 'todowrite',
              arguments: { todos: [{ content: 'Ask the user', status: 'in_progress', priority: 'high' }] },
            },
          ],
        },
        {
          toolCalls: [
            {
              name: 'question',
              arguments: {
                questions: [
                  {
                    question: 'Which greeting?',
                    header: 'Greeting',
                    options: [
                      { label: 'Hello', description: 'plain' },
                      { label: 'Ahoy', description: 'nautical' },
                    ],
                  },
                ],
              },
            },
          ],
        },
        { text: 'You picked a greeting.' },
      ]),
    );
    const stream = new ThreadStream(`${stack.api}/threads/${threadId}/events`);
    const created = await post(`${stack.api}/threads/${threadId}/runs`, { prompt: 'Ask me something' });
    const runId = (created.json as Run).run.runId;
    await stream.waitFor((events) =>
      events.some((e) => 'event' in e && e.event.runId === runId && e.type === 'question.requested'),
    );
    const asked = stream.canonical(runId).find((e) => e.type === 'question.requested');
    const question = asked?.event.kind === 'question.requested' ? asked.event.payload : null;
    expect(question).toMatchObject({ prompt: 'Which greeting?', multiple: false });
    expect(question?.choices.map((c) => c.id)).toEqual(['Hello', 'Ahoy']);
    const answered = await post(`${stack.api}/runs/${runId}/questions/${question?.questionId}`, {
      outcome: 'answered',
      choiceIds: ['Ahoy'],
    });
    expect(answered.status).toBe(202);
    await stream.waitFor(done(runId));
    stream.close();
    const events = stream.canonical(runId);
    expect(events.find((e) => e.type === 'plan.updated')?.event.payload).toEqual({
      entries: [{ content: 'Ask the user', status: 'in_progress', priority: 'high' }],
    });
    expect(events.find((e) => e.type === 'question.resolved')?.event.payload).toMatchObject({
      outcome: 'answered',
      answer: { choiceIds: ['Ahoy'] },
    });
    // OpenCode got the answer: the tool result in the next model request carries it.
    expect(JSON.stringify(fake.modelRequests().at(-1)?.body)).toContain('Ahoy');
    expect(events.find((e) => e.type === 'turn.completed')?.event.payload).toMatchObject({
      stopReason: 'end_turn',
    });
    console.info(
      `[opencode e2e] kinds of the question run: ${[...new Set(events.map((e) => e.type))].join(', ')}`,
    );
  }, 300_000);

  it('a bash command streams terminal output and a subagent runs as a child session', async () => {
    fake.setScenario(
      scripted([
        { toolCalls: [{ name: 'bash', arguments: { command: 'echo hi-from-bash', description: 'Say hi' } }] },
        {
          toolCalls: [
            {
              name: 'task',
              arguments: {
                description: 'Check greeting',
                prompt: 'Say the greeting',
                subagent_type: 'general',
              },
            },
          ],
        },
        { text: 'Child: the greeting is hi.' },
        { text: 'All done.' },
      ]),
    );
    const stream = new ThreadStream(`${stack.api}/threads/${threadId}/events`);
    const created = await post(`${stack.api}/threads/${threadId}/runs`, {
      prompt: 'Run a command, then delegate',
    });
    const runId = (created.json as Run).run.runId;
    await stream.waitFor((events) =>
      events.some((e) => 'event' in e && e.event.runId === runId && e.type === 'approval.requested'),
    );
    const asked = stream.canonical(runId).find((e) => e.type === 'approval.requested');
    const approval = asked?.event.kind === 'approval.requested' ? asked.event.payload : null;
    expect(approval?.subject).toMatchObject({ kind: 'command', command: 'echo hi-from-bash' });
    await post(`${stack.api}/runs/${runId}/approvals/${approval?.approvalId}`, {
      outcome: 'selected',
      optionId: 'once',
    });
    await stream.waitFor(done(runId));
    stream.close();
    const events = stream.canonical(runId);
    const output = events
      .filter((e) => e.type === 'terminal.output')
      .map((e) => (e.event.kind === 'terminal.output' ? e.event.payload.chunk : ''))
      .join('');
    expect(output).toContain('hi-from-bash');
    const child = events.find((e) => e.type === 'child.started');
    expect(child?.event.payload).toMatchObject({ parentToolCallId: expect.any(String) });
    const childId = child?.event.kind === 'child.started' ? child.event.payload.childSessionId : '';
    expect(events.some((e) => e.namespace?.[0] === childId && e.type === 'message.delta')).toBe(true);
    expect(events.find((e) => e.type === 'child.completed')?.event.payload).toMatchObject({
      status: 'completed',
    });
    console.info(
      `[opencode e2e] kinds of the bash + subagent run: ${[...new Set(events.map((e) => e.type))].join(', ')}`,
    );
  }, 300_000);

  it('after an agentlane restart the thread continues in the same OpenCode session', async () => {
    await stack.stop();
    await driver.dispose();
    fake.setScenario(scripted([{ text: 'Still here: you asked for hello.txt.' }]));
    const before = fake.modelRequests().length;
    await boot();
    const stream = new ThreadStream(`${stack.api}/threads/${threadId}/events`);
    const created = await post(`${stack.api}/threads/${threadId}/runs`, { prompt: 'What did I ask first?' });
    expect(created.status).toBe(201);
    const runId = (created.json as Run).run.runId;
    await stream.waitFor(done(runId));
    stream.close();
    expect(JSON.stringify(fake.modelRequests()[before]?.body)).toContain('Create hello.txt');
    const events = stream.canonical(runId);
    expect(events.find((e) => e.type === 'session.started')?.event.payload).toMatchObject({
      origin: 'resume',
    });
    expect(
      events.some(
        (e) => e.type === 'message.completed' && JSON.stringify(e.event.payload).includes('Still here'),
      ),
    ).toBe(true);
    // The model list reached the thread (in whichever run the slow GET /config/providers answered).
    const listed = stream.events.find(
      (e) => 'event' in e && e.event.kind === 'session.metadata' && e.event.payload.availableModels,
    );
    expect(listed && 'event' in listed && listed.event.payload).toMatchObject({
      availableModels: expect.arrayContaining([{ id: 'fake/fake-model-2', name: 'Fake Model 2' }]),
    });
  }, 300_000);
});
