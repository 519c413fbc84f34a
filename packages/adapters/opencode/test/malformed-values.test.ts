import type { JsonValue } from '@agentlane/contract';
import { checkDeterministic, checkResplit } from '@agentlane/engine-kit/testing';
import { describe, expect, it } from 'vitest';
import { openCodeTranslator } from '../src';
import { records, translateAll } from './trace';

// Malformed values inside well-formed events: read best-effort, as before, and one harness.warning per case
// says the engine sent garbage (a user could not tell otherwise).

const S = 'ses_root';
const M = 'msg_a1';
const ev = (type: string, properties: Record<string, JsonValue>): JsonValue => ({ type, properties });
const created = ev('session.created', { sessionID: S, info: { id: S, title: 't', directory: '/w' } });
const busy = ev('session.status', { sessionID: S, status: { type: 'busy' } });
const idle = ev('session.status', { sessionID: S, status: { type: 'idle' } });
const assistant = ev('message.updated', {
  sessionID: S,
  info: { id: M, sessionID: S, role: 'assistant', time: { created: 1 } },
});
const tool = (state: Record<string, JsonValue>, messageID = M) =>
  ev('message.part.updated', {
    sessionID: S,
    part: { id: 'prt_t', messageID, sessionID: S, type: 'tool', tool: 'read', callID: 'call_1', state },
  });
const delta = (messageID: string, partID: string, text: string, field: JsonValue = 'text') =>
  ev('message.part.delta', { sessionID: S, messageID, partID, field, delta: text });

function drafts(frames: JsonValue[]) {
  return translateAll(openCodeTranslator, records(frames)).events.map((e) => e.draft);
}
const ofKind = (ds: ReturnType<typeof drafts>, kind: string) =>
  ds.filter((d) => d.kind === kind).map((d) => d.payload as Record<string, JsonValue>);
const warnings = (ds: ReturnType<typeof drafts>) => ofKind(ds, 'harness.warning').map((p) => p.code);

describe('OpenCode translator: malformed values are warnings', () => {
  it('deltas of a message never announced: the text as before, one opencode.delta_unknown_message', () => {
    const ds = drafts([
      created,
      busy,
      delta('msg_ghost', 'prt_1', 'hel'),
      delta('msg_ghost', 'prt_1', 'lo'),
      idle,
    ]);
    expect(ofKind(ds, 'message.completed')).toEqual([
      { messageId: 'msg_ghost', role: 'assistant', text: 'hello' },
    ]);
    expect(warnings(ds)).toEqual(['opencode.delta_unknown_message']);
    expect(warnings(drafts([created, busy, assistant, delta(M, 'prt_1', 'hi'), idle]))).toEqual([]);
  });

  it('parts of a message never announced: read as before, one opencode.part_unknown_message', () => {
    const ds = drafts([
      created,
      busy,
      tool({ status: 'running', input: {} }, 'msg_ghost'),
      tool({ status: 'completed', input: {}, output: 'ok' }, 'msg_ghost'),
      idle,
    ]);
    expect(ofKind(ds, 'tool.completed')).toEqual([
      expect.objectContaining({ status: 'completed', output: 'ok' }),
    ]);
    expect(warnings(ds)).toEqual(['opencode.part_unknown_message']);
  });

  it('a delta of a field other than text: not shown, as before, and opencode.delta_field_unknown', () => {
    const ds = drafts([created, busy, assistant, delta(M, 'prt_1', 'x', 'html'), idle]);
    expect(ofKind(ds, 'message.delta')).toEqual([]);
    expect(warnings(ds)).toEqual(['opencode.delta_field_unknown']);
  });

  it('a tool output or error that is not text: read as before, with opencode.tool_output/error_not_text', () => {
    const done = drafts([
      created,
      busy,
      assistant,
      tool({ status: 'completed', input: {}, output: 42 }),
      idle,
    ]);
    expect(ofKind(done, 'tool.completed')).toEqual([
      expect.objectContaining({ status: 'completed', output: '' }),
    ]);
    expect(warnings(done)).toEqual(['opencode.tool_output_not_text']);
    const failed = drafts([
      created,
      busy,
      assistant,
      tool({ status: 'error', input: {}, error: { e: 1 } }),
      idle,
    ]);
    expect(ofKind(failed, 'tool.completed')).toEqual([
      expect.objectContaining({ status: 'failed', error: 'tool failed' }),
    ]);
    expect(warnings(failed)).toEqual(['opencode.tool_error_not_text']);
  });

  it('todos that are not a list, or todos with unknown status: the plan as before, with a warning', () => {
    const todo = (todos: JsonValue) => ev('todo.updated', { sessionID: S, todos });
    const ds = drafts([
      created,
      busy,
      todo('everything'),
      todo([{ content: 'a', status: 'pending' }, { content: 'b', status: 'wip' }, { status: 'completed' }]),
      idle,
    ]);
    expect(ofKind(ds, 'plan.updated')).toEqual([
      { entries: [] },
      {
        entries: [
          { content: 'a', status: 'pending' },
          { content: 'b', status: 'pending' },
        ],
      },
    ]);
    expect(warnings(ds)).toEqual(['opencode.todos_invalid', 'opencode.todo_invalid']);
  });

  it('a file whose data: URL is not base64: the artifact as before, and opencode.file_data_invalid', () => {
    const file = (url: string, id: string) =>
      ev('message.part.updated', {
        sessionID: S,
        part: { id, messageID: M, sessionID: S, type: 'file', mime: 'image/png', url },
      });
    const ds = drafts([
      created,
      busy,
      assistant,
      file('data:image/png;base64,iVBORw0KGgo=', 'prt_f1'),
      file('data:image/png;base64,@@not*base64@@', 'prt_f2'),
      idle,
    ]);
    expect(ofKind(ds, 'artifact.created')).toHaveLength(2);
    expect(warnings(ds)).toEqual(['opencode.file_data_invalid']);
  });

  it('the warnings depend only on the frames: same events twice, through JSON state and split in two', () => {
    const frames = [
      created,
      busy,
      delta('msg_ghost', 'prt_1', 'a'),
      delta('msg_ghost', 'prt_1', 'b'),
      tool({ status: 'completed', input: {}, output: 7 }, 'msg_other'),
      delta('msg_ghost', 'prt_1', 'c'),
      idle,
    ];
    const subject = {
      name: 'opencode',
      translator: openCodeTranslator,
      recordings: [{ name: 'malformed', frames }],
    };
    expect(checkDeterministic(subject)).toEqual([]);
    expect(checkResplit(subject)).toEqual([]);
    expect(warnings(drafts(frames))).toEqual([
      'opencode.delta_unknown_message',
      'opencode.part_unknown_message',
      'opencode.tool_output_not_text',
    ]);
  });
});
