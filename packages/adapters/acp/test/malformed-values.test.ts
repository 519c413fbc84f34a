import type { JsonValue } from '@agentlane/contract';
import { checkDeterministic, checkResplit } from '@agentlane/engine-kit/testing';
import { describe, expect, it } from 'vitest';
import { acpTranslator } from '../src';
import { drafts, ofKind, warnings } from './drafts';

// Malformed values inside well-formed frames: the translator reads them best-effort, as before, and one
// harness.warning per case says the agent sent garbage (a user could not tell otherwise).

const agent = (msg: Record<string, JsonValue>): JsonValue => ({
  dir: 'agent->client',
  msg: { jsonrpc: '2.0', ...msg },
});
const update = (u: Record<string, JsonValue>) =>
  agent({ method: 'session/update', params: { sessionId: 's', update: u } });
const begin: JsonValue[] = [
  { harness: 'turn.started', prompt: 'go' },
  {
    dir: 'client->agent',
    msg: { jsonrpc: '2.0', id: 1, method: 'session/prompt', params: { sessionId: 's' } },
  },
];
const end = (stopReason: JsonValue = 'end_turn') => agent({ id: 1, result: { stopReason } });

describe('ACP translator: malformed values are warnings', () => {
  it('a plan whose entries is not an array: an empty plan and acp.plan_entries_invalid', () => {
    const ds = drafts([...begin, update({ sessionUpdate: 'plan', entries: 'do everything' }), end()]);
    expect(ofKind(ds, 'plan.updated')).toEqual([{ entries: [] }]);
    expect(warnings(ds)).toEqual(['acp.plan_entries_invalid']);
  });

  it('plan entries without content or with an unknown status: read as before, one acp.plan_entry_invalid', () => {
    const ds = drafts([
      ...begin,
      update({
        sessionUpdate: 'plan',
        entries: [
          { content: 'a', status: 'pending', priority: 'high' },
          { content: 'b', status: 'finished', priority: 'high' },
          { status: 'completed', priority: 'urgent' },
          7,
        ],
      }),
      end(),
    ]);
    expect(ofKind(ds, 'plan.updated')).toEqual([
      {
        entries: [
          { content: 'a', status: 'pending', priority: 'high' },
          { content: 'b', status: 'pending', priority: 'high' },
          { content: '', status: 'completed' },
        ],
      },
    ]);
    expect(warnings(ds)).toEqual(['acp.plan_entry_invalid']);
    expect(ofKind(ds, 'harness.warning')[0]?.detail).toEqual({ indexes: [1, 2, 3], count: 3 });
  });

  it('an image block whose data is not base64: the artifact as before, and acp.image_data_invalid', () => {
    const image = (data: string) =>
      update({
        sessionUpdate: 'agent_message_chunk',
        content: { type: 'image', mimeType: 'image/png', data },
      });
    const ds = drafts([...begin, image('iVBORw0KGgo='), image('!!! not base64 at all ***'), end()]);
    expect(ofKind(ds, 'artifact.created')).toHaveLength(2);
    expect(warnings(ds)).toEqual(['acp.image_data_invalid']);
  });

  it('an unknown stopReason: the turn still ends as "other" with the raw value, and acp.stop_reason_unknown', () => {
    for (const stopReason of ['exploded', 42] as JsonValue[]) {
      const ds = drafts([...begin, end(stopReason)]);
      expect(ofKind(ds, 'turn.completed')).toEqual([
        expect.objectContaining({
          stopReason: 'other',
          rawStopReason: typeof stopReason === 'string' ? stopReason : 'missing',
        }),
      ]);
      expect(warnings(ds)).toEqual(['acp.stop_reason_unknown']);
    }
    expect(warnings(drafts([...begin, end('end_turn')]))).toEqual([]);
  });

  it('a tool status ACP does not define, or content that is not a list: read without it, with a warning', () => {
    const ds = drafts([
      ...begin,
      update({ sessionUpdate: 'tool_call', toolCallId: 't1', title: 'ls', status: 'pending' }),
      update({ sessionUpdate: 'tool_call_update', toolCallId: 't1', status: 'done', content: 'oops' }),
      update({ sessionUpdate: 'tool_call_update', toolCallId: 't1', status: 'completed' }),
      end(),
    ]);
    expect(warnings(ds)).toEqual(['acp.tool_status_unknown', 'acp.tool_content_invalid']);
    expect(ofKind(ds, 'tool.completed')).toEqual([expect.objectContaining({ status: 'completed' })]);
  });

  it('thought chunks that are not text, and text chunks whose text is not a string, are warnings', () => {
    const ds = drafts([
      ...begin,
      update({ sessionUpdate: 'agent_thought_chunk', content: { type: 'image', data: 'AAAA' } }),
      update({ sessionUpdate: 'agent_thought_chunk' }),
      update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 5 } }),
      update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'hi' } }),
      end(),
    ]);
    expect(warnings(ds)).toEqual(['acp.unhandled_content', 'acp.bad_update', 'acp.bad_update']);
    expect(ofKind(ds, 'message.completed').map((p) => p.text)).toEqual(['go', 'hi']);
  });

  it('the warnings depend only on the frames: same events twice, through JSON state and split in two', () => {
    const frames: JsonValue[] = [
      ...begin,
      update({ sessionUpdate: 'plan', entries: { not: 'a list' } }),
      update({
        sessionUpdate: 'agent_message_chunk',
        content: { type: 'image', mimeType: 'image/png', data: '%%' },
      }),
      update({ sessionUpdate: 'tool_call', toolCallId: 't1', title: 'ls', status: 'weird' }),
      end('exploded'),
    ];
    const subject = { name: 'acp', translator: acpTranslator, recordings: [{ name: 'malformed', frames }] };
    expect(checkDeterministic(subject)).toEqual([]);
    expect(checkResplit(subject)).toEqual([]);
  });
});
