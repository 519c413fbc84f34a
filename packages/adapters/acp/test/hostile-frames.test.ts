import type { JsonValue } from '@agentlane/contract';
import { describe, expect, it } from 'vitest';
import { approvalIdFor } from '../src/internal';
import { drafts, ofKind, warnings } from './drafts';

// What a hostile (or merely sloppy) agent sends, translated from stored frames: nothing it sends may
// settle the wrong approval, record a wrong decision, or land in this thread's content without a warning.

const agent = (msg: Record<string, JsonValue>): JsonValue => ({
  dir: 'agent->client',
  msg: { jsonrpc: '2.0', ...msg },
});
const client = (msg: Record<string, JsonValue>): JsonValue => ({
  dir: 'client->agent',
  msg: { jsonrpc: '2.0', ...msg },
});
const allowReject: JsonValue = [
  { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
  { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
];
const ask = (id: string | number, title: string, options: JsonValue = allowReject, sessionId = 's') =>
  agent({
    id,
    method: 'session/request_permission',
    params: { sessionId, toolCall: { toolCallId: `t-${title}`, title }, options },
  });
const choose = (id: string | number, optionId: string) =>
  client({ id, result: { outcome: { outcome: 'selected', optionId } } });
const refuse = (id: string | number) => client({ id, error: { code: -32600, message: 'Invalid request' } });
const update = (u: Record<string, JsonValue>, sessionId = 's') =>
  agent({ method: 'session/update', params: { sessionId, update: u } });
const begin: JsonValue[] = [
  { harness: 'turn.started', prompt: 'go' },
  client({ id: 1, method: 'session/prompt', params: { sessionId: 's', prompt: [] } }),
];

describe('ACP translator: approval ids', () => {
  it('are injective over JSON-RPC ids (number and string apart, no lossy mapping) and URL-safe', () => {
    const ids: (string | number)[] = [
      1,
      '1',
      1.5,
      '1.5',
      '1_5',
      '1-5',
      -1,
      '-1',
      1e21,
      '1e+21',
      '',
      '~n1',
      'a/b',
    ];
    ids.push('a_002fb', 'é', '\u00e9', 'perm', 0, '0', 7);
    const approvalIds = ids.map(approvalIdFor);
    expect(new Set(approvalIds).size).toBe(new Set(ids).size);
    for (const id of approvalIds) expect(id).toMatch(/^perm-[A-Za-z0-9_.~-]+$/);
    // The ids agents send keep the approval ids they always had.
    expect([7, 'call_1', 'req-2'].map(approvalIdFor)).toEqual(['perm-7', 'perm-call_1', 'perm-req-2']);
  });

  it('1.5 and "1_5" are two approvals: one answer settles only its own', () => {
    const ds = drafts([
      ...begin,
      ask(1.5, 'delete prod db'),
      ask('1_5', 'read readme'),
      choose('1_5', 'allow'),
      choose(1.5, 'reject'),
    ]);
    const requested = ofKind(ds, 'approval.requested').map((p) => p.approvalId);
    expect(requested).toEqual([approvalIdFor(1.5), approvalIdFor('1_5')]);
    expect(new Set(requested).size).toBe(2);
    expect(ofKind(ds, 'approval.resolved').map((p) => [p.approvalId, p.decision])).toEqual([
      [approvalIdFor('1_5'), 'allow_once'],
      [approvalIdFor(1.5), 'reject_once'],
    ]);
  });

  it('a request under an id still pending is refused: a warning, no second approval, its refusal settles nothing', () => {
    const ds = drafts([
      ...begin,
      ask(5, 'delete prod db'),
      ask(5, 'read readme'),
      refuse(5),
      choose(5, 'allow'),
      // Answered: the id is free again; a new request under it is a new approval, with an id of its own.
      ask(5, 'list files'),
      choose(5, 'reject'),
    ]);
    expect(ofKind(ds, 'approval.requested').map((p) => [p.approvalId, p.title])).toEqual([
      ['perm-5', 'delete prod db'],
      ['perm-5~2', 'list files'],
    ]);
    expect(warnings(ds)).toEqual(['acp.duplicate_request_id']);
    expect(ofKind(ds, 'approval.resolved').map((p) => [p.approvalId, p.decision])).toEqual([
      ['perm-5', 'allow_once'],
      ['perm-5~2', 'reject_once'],
    ]);
  });

  it('follows the driver: its refusal of a request under a pending id (its books span runs), one warning', () => {
    const ds = drafts([
      ...begin,
      {
        event: 'acp.wire_warning',
        reason: 'duplicate_request_id',
        id: 5,
        method: 'session/request_permission',
      },
      ask(5, 'pending in an earlier run'),
      refuse(5),
    ]);
    expect(ofKind(ds, 'approval.requested')).toEqual([]);
    expect(ofKind(ds, 'approval.resolved')).toEqual([]);
    expect(warnings(ds)).toEqual(['acp.duplicate_request_id']);
  });

  it('follows the driver: the approval id it gave a reused request id', () => {
    const ds = drafts([
      ...begin,
      { event: 'acp.approval_id', id: 5, approvalId: 'perm-5~3' },
      ask(5, 'third of the session'),
      choose(5, 'allow'),
    ]);
    expect(ofKind(ds, 'approval.requested').map((p) => p.approvalId)).toEqual(['perm-5~3']);
    expect(ofKind(ds, 'approval.resolved').map((p) => [p.approvalId, p.decision])).toEqual([
      ['perm-5~3', 'allow_once'],
    ]);
  });

  it('the refusal may come after the first request’s answer: still only the first is settled', () => {
    const ds = drafts([
      ...begin,
      ask(5, 'delete prod db'),
      ask(5, 'read readme'),
      choose(5, 'reject'),
      refuse(5),
    ]);
    expect(ofKind(ds, 'approval.resolved')).toEqual([
      expect.objectContaining({ approvalId: 'perm-5', decision: 'reject_once' }),
    ]);
    expect(warnings(ds)).toEqual(['acp.duplicate_request_id']);
  });
});

describe('ACP translator: permission requests that cannot be answered', () => {
  it('options sharing an optionId offer no approval (no wrong decision), with a warning', () => {
    const options = [
      { optionId: 'x', name: 'Allow', kind: 'allow_once' },
      { optionId: 'x', name: 'Reject', kind: 'reject_once' },
    ];
    const ds = drafts([...begin, ask(3, 'ambiguous', options), refuse(3)]);
    expect(ofKind(ds, 'approval.requested')).toEqual([]);
    expect(ofKind(ds, 'approval.resolved')).toEqual([]);
    expect(warnings(ds)).toEqual(['acp.ambiguous_permission_options']);
  });

  it('an option of an unknown kind (the SDK rejects the request) offers no approval, with a warning', () => {
    const options = [{ optionId: 'y', name: 'Yes', kind: 'allow_forever' }];
    const ds = drafts([...begin, ask(4, 'bad kind', options), refuse(4)]);
    expect(ofKind(ds, 'approval.requested')).toEqual([]);
    expect(ofKind(ds, 'approval.resolved')).toEqual([]);
    expect(warnings(ds)).toEqual(['acp.bad_permission_request']);
  });

  it('a request refused after it was offered ends cancelled by the system, and a warning says why', () => {
    const ds = drafts([...begin, ask(6, 'fine'), refuse(6)]);
    expect(ofKind(ds, 'approval.requested')).toHaveLength(1);
    expect(ofKind(ds, 'approval.resolved')).toEqual([
      expect.objectContaining({ approvalId: 'perm-6', outcome: 'cancelled', answeredBy: 'system' }),
    ]);
    expect(warnings(ds)).toEqual(['acp.permission_refused']);
  });

  it('a request for another session offers no approval, with a warning', () => {
    const ds = drafts([...begin, ask(8, 'elsewhere', allowReject, 'other'), refuse(8)]);
    expect(ofKind(ds, 'approval.requested')).toEqual([]);
    expect(warnings(ds)).toEqual(['acp.foreign_session']);
  });
});

describe('ACP translator: reused tool call ids', () => {
  it('a tool_call reusing a finished call’s id is a new call with a derived id, and a warning', () => {
    const call = (status: string, title: string) =>
      update({ sessionUpdate: 'tool_call', toolCallId: 'c1', status, title, kind: 'read' });
    const ds = drafts([
      ...begin,
      call('completed', 'first'),
      call('pending', 'second'),
      update({ sessionUpdate: 'tool_call_update', toolCallId: 'c1', status: 'completed', rawOutput: 'two' }),
      call('in_progress', 'third'),
    ]);
    expect(ofKind(ds, 'tool.started').map((p) => [p.toolCallId, p.title])).toEqual([
      ['c1', 'first'],
      ['c1#2', 'second'],
      ['c1#3', 'third'],
    ]);
    expect(ofKind(ds, 'tool.completed').map((p) => [p.toolCallId, p.output ?? null])).toEqual([
      ['c1', null],
      ['c1#2', 'two'],
      ['c1#3', null],
    ]);
    expect(warnings(ds)).toEqual(['acp.reused_tool_call_id', 'acp.reused_tool_call_id']);
  });
});

describe('ACP translator: reused tool call ids in permission requests', () => {
  it('a permission request for a finished call’s id asks about a new call (derived id); its tool_call joins it', () => {
    const ds = drafts([
      ...begin,
      update({
        sessionUpdate: 'tool_call',
        toolCallId: 'c1',
        status: 'completed',
        title: 'first',
        kind: 'read',
      }),
      agent({
        id: 9,
        method: 'session/request_permission',
        params: { sessionId: 's', toolCall: { toolCallId: 'c1', title: 'second' }, options: allowReject },
      }),
      update({ sessionUpdate: 'tool_call', toolCallId: 'c1', status: 'in_progress', title: 'second' }),
    ]);
    expect(ofKind(ds, 'tool.started').map((p) => p.toolCallId)).toEqual(['c1', 'c1#2']);
    expect(ofKind(ds, 'approval.requested').map((p) => p.toolCallId)).toEqual(['c1#2']);
    expect(warnings(ds)).toEqual(['acp.reused_tool_call_id']);
  });
});

const say = (text: string, sessionId: string) =>
  update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } }, sessionId);
const texts = (ds: ReturnType<typeof drafts>) =>
  ofKind(ds, 'message.completed')
    .filter((p) => p.role === 'assistant')
    .map((p) => p.text);

describe('ACP translator: frames of another session, stray responses', () => {
  it('an update for another session than the bound one is a warning, not this thread’s message', () => {
    const ds = drafts([
      client({ id: 0, method: 'session/new', params: { cwd: '/w', mcpServers: [] } }),
      agent({ id: 0, result: { sessionId: 's' } }),
      ...begin,
      say('not yours', 'other'),
      say('yours', 's'),
    ]);
    expect(texts(ds)).toEqual(['yours']);
    expect(warnings(ds)).toEqual(['acp.foreign_session']);
  });

  it('a later run (no session response) knows its session from its prompt', () => {
    const ds = drafts([...begin, say('not yours', 'other'), say('yours', 's')]);
    expect(texts(ds)).toEqual(['yours']);
    expect(warnings(ds)).toEqual(['acp.foreign_session']);
  });

  it('an error response the driver flagged as stray is its warning only: no harness.error', () => {
    const ds = drafts([
      ...begin,
      { event: 'acp.wire_warning', reason: 'stray_response', id: 99 },
      agent({ id: 99, error: { code: -32603, message: 'no such request' } }),
    ]);
    expect(warnings(ds)).toEqual(['acp.stray_response']);
    expect(ofKind(ds, 'harness.error')).toEqual([]);
  });

  it('a stray result is not read by its shape: it does not end the turn', () => {
    const ds = drafts([
      ...begin,
      { event: 'acp.wire_warning', reason: 'stray_response', id: 98 },
      agent({ id: 98, result: { stopReason: 'end_turn' } }),
      say('still going', 's'),
      agent({ id: 1, result: { stopReason: 'end_turn' } }),
    ]);
    expect(ofKind(ds, 'turn.completed')).toHaveLength(1);
    expect(texts(ds)).toEqual(['still going']);
  });
});

describe('ACP translator: what the driver answered without asking', () => {
  const late = (frame: JsonValue): JsonValue => ({ ...(frame as Record<string, JsonValue>), late: true });
  const cancelled = (id: string | number) => client({ id, result: { outcome: { outcome: 'cancelled' } } });
  const commands = update({ sessionUpdate: 'available_commands_update', availableCommands: [{ name: 'c' }] });

  it('frames marked late show nothing of theirs: one warning a burst, settings still applied', () => {
    const ds = drafts([
      ...begin,
      say('on time', 's'),
      agent({ id: 1, result: { stopReason: 'end_turn' } }),
      late(say('late text', 's')),
      late(update({ sessionUpdate: 'tool_call', toolCallId: 'late-tool', title: 'late', status: 'pending' })),
      commands,
      late(ask(7, 'late')),
      cancelled(7),
      late(say('more late text', 's')),
    ]);
    expect(texts(ds)).toEqual(['on time']);
    expect(warnings(ds)).toEqual(['acp.late_frames']);
    expect(JSON.stringify(ds)).not.toContain('late-tool');
    expect(ofKind(ds, 'approval.requested')).toEqual([]);
    expect(ofKind(ds, 'approval.resolved')).toEqual([]);
    expect(ofKind(ds, 'commands.updated')).toHaveLength(1);
  });

  it('the next prompt ends a burst: late frames after its answer are a burst of their own', () => {
    const ds = drafts([
      { harness: 'turn.started', prompt: 'go' },
      late(say('late from the turn before', 's')),
      client({ id: 2, method: 'session/prompt', params: { sessionId: 's', prompt: [] } }),
      say('on time', 's'),
      agent({ id: 2, result: { stopReason: 'end_turn' } }),
      late(say('late again', 's')),
    ]);
    expect(texts(ds)).toEqual(['on time']);
    expect(warnings(ds)).toEqual(['acp.late_frames', 'acp.late_frames']);
  });

  it('a permission request over the driver’s cap is its warning only; the id is free once answered', () => {
    const ds = drafts([
      ...begin,
      { event: 'acp.wire_warning', reason: 'too_many_pending_permissions', id: 9, limit: 64 },
      ask(9, 'one too many'),
      cancelled(9),
      ask(9, 'offered'),
      choose(9, 'allow'),
      agent({ id: 1, result: { stopReason: 'end_turn' } }),
    ]);
    expect(warnings(ds)).toEqual(['acp.too_many_pending_permissions']);
    expect(ofKind(ds, 'approval.requested').map((p) => p.title)).toEqual(['offered']);
    expect(ofKind(ds, 'approval.resolved')).toEqual([
      expect.objectContaining({ approvalId: approvalIdFor(9), decision: 'allow_once' }),
    ]);
  });
});
