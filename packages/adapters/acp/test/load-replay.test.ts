import { join } from 'node:path';
import type { JsonValue } from '@agentlane/contract';
import { describe, expect, it } from 'vitest';
import { acpTranslator } from '../src';
import { readJsonl, records, translateAll } from './trace';

const update = (u: Record<string, JsonValue>, sessionId = 's1'): JsonValue => ({
  dir: 'agent->client',
  msg: { jsonrpc: '2.0', method: 'session/update', params: { sessionId, update: u } },
});
const load: JsonValue = {
  dir: 'client->agent',
  msg: {
    jsonrpc: '2.0',
    id: 1,
    method: 'session/load',
    params: { sessionId: 's1', cwd: '/w', mcpServers: [] },
  },
};
const loaded: JsonValue = { dir: 'agent->client', msg: { jsonrpc: '2.0', id: 1, result: {} } };
const promptIn = (sessionId: string): JsonValue => ({
  dir: 'client->agent',
  msg: {
    jsonrpc: '2.0',
    id: 2,
    method: 'session/prompt',
    params: { sessionId, prompt: [{ type: 'text', text: 'next question' }] },
  },
});
const prompt = promptIn('s1');
const done: JsonValue = {
  dir: 'agent->client',
  msg: { jsonrpc: '2.0', id: 2, result: { stopReason: 'end_turn' } },
};
const say = (role: 'user' | 'agent', text: string, sessionId = 's1') =>
  update({ sessionUpdate: `${role}_message_chunk`, content: { type: 'text', text } }, sessionId);

/** A tool call first seen already finished: how Gemini replays one. */
const finishedTool = (toolCallId: string, kind = 'edit') =>
  update({ sessionUpdate: 'tool_call', toolCallId, status: 'completed', title: toolCallId, kind });

function translate(frames: JsonValue[]) {
  const { events } = translateAll(acpTranslator, records(frames));
  const drafts = events.map((e) => e.event.draft);
  return {
    kinds: drafts.map((d) => d.kind),
    texts: drafts.flatMap((d) => (d.kind === 'message.completed' ? [d.payload.text] : [])),
    markers: drafts.flatMap((d) => (d.kind === 'context.marker' ? [d.payload] : [])),
    drafts,
  };
}

describe('session/load history replay', () => {
  it('is bracketed by reconciling markers and only keeps the session settings', () => {
    const { kinds, texts, markers, drafts } = translate([
      { harness: 'turn.started', prompt: 'next question' },
      load,
      say('user', 'old prompt'),
      say('agent', 'old answer'),
      update({ sessionUpdate: 'current_mode_update', currentModeId: 'plan' }),
      loaded,
      prompt,
      say('agent', 'new answer'),
      done,
    ]);
    expect(markers).toMatchObject([
      { markerKind: 'reconciling', phase: 'start' },
      { markerKind: 'reconciling', phase: 'end' },
    ]);
    expect(kinds).toContain('mode.updated');
    expect(texts).toEqual(['next question', 'new answer']);
    expect(drafts.find((d) => d.kind === 'session.started')?.payload).toMatchObject({ origin: 'load' });
  });

  // Gemini CLI 0.61.0 answers session/load first and streams the history afterwards: the replay runs up to
  // the next prompt, and the last replayed answer must not merge with the new one.
  it('goes on after the load response (Gemini) until the next prompt', () => {
    const { texts, kinds, markers } = translate([
      { harness: 'turn.started', prompt: 'next question' },
      load,
      say('user', 'old prompt'),
      loaded,
      update({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'old thought' } }),
      say('agent', 'old answer'),
      finishedTool('old-tool'),
      prompt,
      say('agent', 'new answer'),
      done,
    ]);
    expect(texts).toEqual(['next question', 'new answer']);
    expect(kinds).not.toContain('reasoning.completed');
    expect(kinds).not.toContain('tool.started');
    // The bracket closes at the prompt, before the new answer starts.
    expect(markers.map((m) => m.phase)).toEqual(['start', 'end']);
    expect(kinds.lastIndexOf('context.marker')).toBeLessThan(kinds.lastIndexOf('message.started'));
  });

  it('drops history-only updates that spill past the prompt, up to the first live output', () => {
    const { texts, kinds } = translate([
      { harness: 'turn.started', prompt: 'next question' },
      load,
      loaded,
      prompt,
      say('user', 'old prompt'),
      finishedTool('old-tool'),
      update({
        sessionUpdate: 'available_commands_update',
        availableCommands: [{ name: 'x', description: 'X' }],
      }),
      say('agent', 'new answer'),
      // After the first live output a finished tool call is live too (an agent may report a quick one so).
      finishedTool('quick', 'read'),
      done,
    ]);
    expect(texts).toEqual(['next question', 'new answer']);
    expect(kinds).toContain('commands.updated');
    expect(kinds.filter((k) => k === 'tool.started')).toHaveLength(1);
  });

  it('a failed load replays nothing: the bracket closes at the error', () => {
    const { texts, markers } = translate([
      { harness: 'turn.started', prompt: 'next question' },
      load,
      {
        dir: 'agent->client',
        msg: { jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'Internal error' } },
      },
      { harness: 'engine.error', message: 'could not continue; started a new one', fatal: false },
      {
        dir: 'client->agent',
        msg: { jsonrpc: '2.0', id: 3, method: 'session/new', params: { cwd: '/w', mcpServers: [] } },
      },
      { dir: 'agent->client', msg: { jsonrpc: '2.0', id: 3, result: { sessionId: 's2' } } },
      // The new session's updates carry its own id.
      update({ sessionUpdate: 'current_mode_update', currentModeId: 'plan' }, 's2'),
      promptIn('s2'),
      say('agent', 'new answer', 's2'),
      done,
    ]);
    expect(markers.map((m) => m.phase)).toEqual(['start', 'end']);
    expect(texts).toEqual(['next question', 'new answer']);
  });

  it('a recorded Gemini CLI restart: the replayed history adds no message, tool or thought to the new run', () => {
    const frames = readJsonl(join(import.meta.dirname, '__fixtures__', 'gemini-cli.load.wire.jsonl'));
    const { texts, drafts, markers } = translate(frames);
    expect(texts).toEqual([
      'Write the word to hello.txt',
      'I will write the file now.',
      'Done: hello.txt was written.',
    ]);
    expect(drafts.filter((d) => d.kind === 'tool.started')).toHaveLength(1);
    expect(drafts.filter((d) => d.kind === 'reasoning.completed')).toHaveLength(1);
    expect(markers.map((m) => m.phase)).toEqual(['start', 'end']);
    expect(drafts.find((d) => d.kind === 'session.started')?.payload).toMatchObject({ origin: 'load' });
  });
});
