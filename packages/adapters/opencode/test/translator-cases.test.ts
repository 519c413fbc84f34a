import type { JsonValue } from '@agentlane/contract';
import { formatIssues, parseCanonicalEvent, SCHEMA_VERSION } from '@agentlane/contract';
import type { TranslatedEvent } from '@agentlane/engine-kit';
import { describe, expect, it } from 'vitest';
import { openCodeTranslator } from '../src';
import { records, translateAll } from './trace';

const S = 'ses_root';
const M = 'msg_a1';
const ev = (type: string, properties: Record<string, JsonValue>, id?: string): JsonValue => ({
  ...(id ? { id } : {}),
  type,
  properties,
});
const created = ev('session.created', {
  sessionID: S,
  info: { id: S, title: 't', directory: '/w', version: '1.18.33' },
});
const busy = ev('session.status', { sessionID: S, status: { type: 'busy' } });
const idle = ev('session.status', { sessionID: S, status: { type: 'idle' } });
const assistant = ev('message.updated', {
  sessionID: S,
  info: {
    id: M,
    sessionID: S,
    role: 'assistant',
    modelID: 'm',
    providerID: 'p',
    agent: 'build',
    time: { created: 1 },
  },
});
const tool = (state: Record<string, JsonValue>, name = 'bash', callID = 'call_9') =>
  ev('message.part.updated', {
    sessionID: S,
    part: { id: `prt_${callID}`, messageID: M, sessionID: S, type: 'tool', tool: name, callID, state },
  });

function run(frames: JsonValue[]): TranslatedEvent[] {
  const { events } = translateAll(openCodeTranslator, records(frames));
  events.forEach((e, i) => {
    const parsed = parseCanonicalEvent({
      schemaVersion: SCHEMA_VERSION,
      eventId: `ev_${i}`,
      seq: i + 1,
      runId: 'r',
      threadId: 't',
      turnId: 'r',
      ts: '2026-01-01T00:00:00.000Z',
      identity: { provider: 'opencode', ...e.identity },
      kind: e.draft.kind,
      payload: e.draft.payload,
    });
    if (!parsed.ok) throw new Error(`${e.key}\n${formatIssues(parsed.errors)}`);
  });
  return events;
}
const of = (events: TranslatedEvent[], kind: string) => events.filter((e) => e.draft.kind === kind);

describe('OpenCode translator cases', () => {
  it('bash: cumulative running output becomes terminal.output tails, then an exit chunk', () => {
    const events = run([
      created,
      busy,
      assistant,
      tool({ status: 'pending', input: {}, raw: '' }),
      tool({ status: 'running', input: { command: 'ls' }, time: { start: 10 } }),
      tool({ status: 'running', input: { command: 'ls' }, metadata: { output: 'a\n' }, time: { start: 10 } }),
      tool({
        status: 'running',
        input: { command: 'ls' },
        metadata: { output: 'a\nb\n' },
        time: { start: 10 },
      }),
      tool({
        status: 'completed',
        input: { command: 'ls' },
        output: 'a\nb\n',
        title: 'ls',
        metadata: { output: 'a\nb\n', exit: 0 },
        time: { start: 10, end: 30 },
      }),
      idle,
    ]);
    const chunks = of(events, 'terminal.output').map((e) => e.draft.payload);
    expect(chunks.map((c) => (c as { chunk: string }).chunk).join('')).toBe('a\nb\n');
    expect(chunks.at(-1)).toMatchObject({ exit: { code: 0 }, command: 'ls' });
    expect(of(events, 'tool.started')).toHaveLength(1);
    expect(of(events, 'tool.completed')[0]?.draft.payload).toMatchObject({
      status: 'completed',
      durationMs: 20,
    });
  });

  it('permission.asked / replied and the harness answer give one approval.resolved', () => {
    const asked = ev('permission.asked', {
      id: 'per_1',
      sessionID: S,
      permission: 'edit',
      patterns: ['/w/a.txt'],
      metadata: { filepath: '/w/a.txt', diff: '--- a\n+++ b\n' },
      always: ['*'],
      tool: { messageID: M, callID: 'call_1' },
    });
    const events = run([
      created,
      busy,
      asked,
      {
        harness: 'approval.answered',
        approvalId: 'per_1',
        outcome: 'selected',
        optionId: 'always',
        answeredBy: 'u1',
      },
      ev('permission.replied', { sessionID: S, requestID: 'per_1', reply: 'always' }),
      idle,
    ]);
    expect(of(events, 'approval.requested')[0]?.draft.payload).toMatchObject({
      approvalId: 'per_1',
      toolCallId: 'call_1',
      subject: { kind: 'file_edit', path: 'a.txt' },
    });
    const resolved = of(events, 'approval.resolved');
    expect(resolved).toHaveLength(1);
    expect(resolved[0]?.draft.payload).toMatchObject({ decision: 'allow_always', answeredBy: 'u1' });
  });

  it('a session that goes idle closes every approval and question still open, before turn.completed', () => {
    const events = run([
      created,
      busy,
      ev('permission.asked', { id: 'per_2', sessionID: S, permission: 'bash', patterns: ['ls'], always: [] }),
      ev('question.asked', {
        id: 'que_2',
        sessionID: S,
        questions: [
          { question: 'One?', header: 'One', options: [{ label: 'A', description: 'a' }] },
          { question: 'Two?', header: 'Two', options: [{ label: 'B', description: 'b' }] },
        ],
      }),
      idle,
      // A reply that comes after the turn ended changes nothing: the request was already closed.
      ev('permission.replied', { sessionID: S, requestID: 'per_2', reply: 'once' }),
    ]);
    const kinds = events.map((e) => e.draft.kind);
    expect(of(events, 'approval.resolved').map((e) => e.draft.payload)).toEqual([
      expect.objectContaining({ approvalId: 'per_2', outcome: 'cancelled', answeredBy: 'system' }),
    ]);
    const questions = of(events, 'question.resolved').map((e) => e.draft.payload);
    expect(questions).toHaveLength(of(events, 'question.requested').length);
    expect(questions.length).toBeGreaterThan(0);
    for (const q of questions) expect(q).toMatchObject({ outcome: 'cancelled', answeredBy: 'system' });
    expect(kinds.lastIndexOf('approval.resolved')).toBeLessThan(kinds.indexOf('turn.completed'));
    expect(kinds.lastIndexOf('question.resolved')).toBeLessThan(kinds.indexOf('turn.completed'));
  });

  it('questions, todos, child sessions with namespaces, errors and the idle de-duplication', () => {
    const child = 'ses_child';
    const events = run([
      created,
      busy,
      assistant,
      tool({ status: 'running', input: { prompt: 'p' }, time: { start: 1 } }, 'task', 'call_t'),
      ev('session.created', { sessionID: child, info: { id: child, parentID: S, title: 'sub' } }),
      ev('session.status', { sessionID: child, status: { type: 'busy' } }),
      ev('message.updated', { sessionID: child, info: { id: 'msg_c', sessionID: child, role: 'assistant' } }),
      ev('message.part.updated', {
        sessionID: child,
        part: {
          id: 'prt_c',
          messageID: 'msg_c',
          sessionID: child,
          type: 'text',
          text: 'child says',
          time: { start: 1, end: 2 },
        },
      }),
      ev('session.status', { sessionID: child, status: { type: 'idle' } }),
      tool(
        {
          status: 'completed',
          input: { prompt: 'p' },
          output: 'sub done',
          title: 't',
          metadata: { sessionId: child },
          time: { start: 1, end: 5 },
        },
        'task',
        'call_t',
      ),
      ev('question.asked', {
        id: 'que_1',
        sessionID: S,
        questions: [
          {
            question: 'Which?',
            header: 'Pick',
            options: [
              { label: 'A', description: 'a' },
              { label: 'B', description: 'b' },
            ],
          },
        ],
      }),
      ev('question.replied', { sessionID: S, requestID: 'que_1', answers: [['B']] }),
      ev('todo.updated', {
        sessionID: S,
        todos: [{ content: 'x', status: 'in_progress', priority: 'high' }],
      }),
      ev('session.error', {
        sessionID: S,
        error: { name: 'APIError', data: { message: 'boom', isRetryable: false } },
      }),
      ev('something.new', {}),
      idle,
      ev('session.idle', { sessionID: S }),
    ]);
    expect(of(events, 'child.started')[0]?.draft.payload).toMatchObject({
      childSessionId: child,
      parentToolCallId: 'call_t',
    });
    const childText = events.find((e) => e.draft.kind === 'message.delta' && e.namespace);
    expect(childText?.namespace).toEqual([child]);
    expect(of(events, 'child.updated').map((e) => (e.draft.payload as { state: string }).state)).toEqual([
      'idle',
    ]);
    expect(of(events, 'child.completed')[0]?.draft.payload).toMatchObject({ status: 'completed' });
    expect(of(events, 'question.requested')[0]?.draft.payload).toMatchObject({
      questionId: 'que_1',
      multiple: false,
    });
    expect(of(events, 'question.resolved')[0]?.draft.payload).toMatchObject({ answer: { choiceIds: ['B'] } });
    expect(of(events, 'plan.updated')[0]?.draft.payload).toEqual({
      entries: [{ content: 'x', status: 'in_progress', priority: 'high' }],
    });
    expect(of(events, 'harness.error')[0]?.draft.payload).toMatchObject({ message: 'boom', fatal: true });
    expect(of(events, 'harness.warning')[0]?.draft.payload).toMatchObject({ code: 'opencode.unknown_event' });
    const done = of(events, 'turn.completed');
    expect(done).toHaveLength(1);
    expect(done[0]?.draft.payload).toMatchObject({ stopReason: 'error' });
  });

  it('a user abort ends the turn cancelled, open tools cancelled, malformed frames warn', () => {
    const events = run([
      created,
      { harness: 'turn.started', prompt: 'go' },
      busy,
      assistant,
      tool({ status: 'running', input: { command: 'sleep 9' }, time: { start: 1 } }),
      { harness: 'turn.cancel_requested' },
      ev('session.error', {
        sessionID: S,
        error: { name: 'MessageAbortedError', data: { message: 'aborted' } },
      }),
      'not an object',
      ev('message.part.updated', { sessionID: S }),
      idle,
    ]);
    expect(of(events, 'harness.error')).toHaveLength(0);
    expect(of(events, 'harness.warning').length).toBe(2);
    expect(of(events, 'turn.completed')[0]?.draft.payload).toMatchObject({ stopReason: 'cancelled' });
    expect(of(events, 'tool.completed')[0]?.draft.payload).toMatchObject({ status: 'cancelled' });
  });

  it('the model list becomes availableModels and the current model', () => {
    const events = run([
      {
        type: 'agentlane.http.response',
        route: 'GET /config/providers',
        body: {
          providers: [{ id: 'fake', models: { a: { id: 'a', name: 'A' }, b: { id: 'b', name: 'B' } } }],
          default: { fake: 'b' },
        },
      },
    ]);
    expect(of(events, 'session.metadata')[0]?.draft.payload).toEqual({
      availableModels: [
        { id: 'fake/a', name: 'A' },
        { id: 'fake/b', name: 'B' },
      ],
      model: { id: 'fake/b' },
    });
  });

  it('is pure: translating the same frames twice gives the same events, and the input state is untouched', () => {
    const frames = [created, busy, assistant, idle];
    const before = openCodeTranslator.initialState({
      threadId: 't',
      runId: 'r',
      turnId: 'r',
      provider: 'opencode',
    });
    const snapshot = JSON.stringify(before);
    openCodeTranslator.translate(records(frames)[0]!, before, {
      threadId: 't',
      runId: 'r',
      turnId: 'r',
      provider: 'opencode',
    });
    expect(JSON.stringify(before)).toBe(snapshot);
    expect(run(frames)).toEqual(run(frames));
  });
});
