import type { JsonValue } from '@agentlane/contract';
import { describe, expect, it } from 'vitest';
import { acpTranslator } from '../src';
import { records, translateAll } from './trace';

const fromAgent = (msg: Record<string, JsonValue>): JsonValue => ({
  dir: 'agent->client',
  msg: { jsonrpc: '2.0', ...msg },
});
const fromClient = (msg: Record<string, JsonValue>): JsonValue => ({
  dir: 'client->agent',
  msg: { jsonrpc: '2.0', ...msg },
});
const permission: JsonValue = fromAgent({
  id: 7,
  method: 'session/request_permission',
  params: {
    sessionId: 's',
    toolCall: {
      toolCallId: 'c1',
      kind: 'execute',
      status: 'pending',
      title: 'rm -rf /tmp/x',
      rawInput: { command: 'rm -rf /tmp/x' },
    },
    options: [
      { optionId: 'yes', name: 'Yes', kind: 'allow_once' },
      { optionId: 'no', name: 'No', kind: 'reject_once' },
    ],
  },
});

function kinds(frames: JsonValue[]) {
  return translateAll(acpTranslator, records(frames)).events.map((e) => e.event);
}

describe('ACP translator and harness frames', () => {
  it('a cancelled run answers the pending approval as cancelled and ends the turn cancelled', () => {
    const events = kinds([
      { harness: 'turn.started', prompt: 'clean up' },
      fromClient({ id: 2, method: 'session/prompt', params: { sessionId: 's', prompt: [] } }),
      permission,
      { harness: 'turn.cancel_requested' },
      { harness: 'approval.answered', approvalId: 'perm-7', outcome: 'cancelled', answeredBy: 'system' },
      fromClient({ id: 7, result: { outcome: { outcome: 'cancelled' } } }),
      fromAgent({ id: 2, result: { stopReason: 'cancelled' } }),
      { harness: 'turn.ended', outcome: 'cancelled' },
    ]);
    const requested = events.find((e) => e.draft.kind === 'approval.requested');
    expect(requested?.draft.payload).toMatchObject({
      approvalId: 'perm-7',
      subject: { kind: 'command', command: 'rm -rf /tmp/x' },
    });
    const resolved = events.filter((e) => e.draft.kind === 'approval.resolved');
    expect(resolved).toHaveLength(1);
    expect(resolved[0]?.draft.payload).toMatchObject({ outcome: 'cancelled', answeredBy: 'system' });
    expect(events.find((e) => e.draft.kind === 'tool.completed')?.draft.payload).toMatchObject({
      status: 'cancelled',
    });
    expect(events.filter((e) => e.draft.kind === 'turn.completed').map((e) => e.draft.payload)).toEqual([
      expect.objectContaining({ stopReason: 'cancelled' }),
    ]);
  });

  it('an engine that exits gives one fatal harness.error and a turn that ends in error', () => {
    const events = kinds([
      { harness: 'turn.started', prompt: 'go' },
      fromAgent({
        method: 'session/update',
        params: {
          sessionId: 's',
          update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'half' } },
        },
      }),
      { harness: 'engine.exited', code: null, signal: 'SIGKILL', stderrTail: 'boom' },
      { harness: 'engine.error', message: 'the engine failed: exited', fatal: true },
      { harness: 'turn.ended', outcome: 'failed', error: 'exited' },
    ]);
    const errors = events.filter((e) => e.draft.kind === 'harness.error');
    expect(errors).toHaveLength(1);
    expect(errors[0]?.draft.payload).toMatchObject({ code: 'engine.exited', fatal: true, detail: 'boom' });
    const assistant = events.filter((e) => e.draft.kind === 'message.completed').at(-1);
    expect(assistant?.draft.payload).toMatchObject({ role: 'assistant', text: 'half' });
    expect(events.find((e) => e.draft.kind === 'turn.completed')?.draft.payload).toMatchObject({
      stopReason: 'error',
    });
  });

  it('the durable acp.commands event and the raw update give one commands.updated', () => {
    const commands = [{ name: 'review', description: 'Review changes', input: { hint: 'what' } }];
    const events = kinds([
      { harness: 'turn.started', prompt: 'x' },
      fromAgent({
        method: 'session/update',
        params: {
          sessionId: 's',
          update: { sessionUpdate: 'available_commands_update', availableCommands: commands },
        },
      }),
      { event: 'acp.commands', sessionId: 's', availableCommands: commands },
      { harness: 'turn.ended', outcome: 'completed' },
    ]);
    const updated = events.filter((e) => e.draft.kind === 'commands.updated');
    expect(updated).toHaveLength(1);
    expect(updated[0]?.draft.payload).toEqual({
      commands: [{ name: 'review', description: 'Review changes', inputHint: 'what' }],
    });
  });

  it('a malformed frame becomes a harness.warning, never a throw', () => {
    const events = kinds([
      { harness: 'turn.started', prompt: 'x' },
      42,
      { dir: 'agent->client', msg: { jsonrpc: '2.0' } },
    ]);
    expect(events.filter((e) => e.draft.kind === 'harness.warning')).toHaveLength(2);
  });
});
