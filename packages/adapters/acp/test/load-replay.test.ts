import type { JsonValue } from '@agentlane/contract';
import { describe, expect, it } from 'vitest';
import { acpTranslator } from '../src';
import { records, translateAll } from './trace';

const update = (u: Record<string, JsonValue>): JsonValue => ({
  dir: 'agent->client',
  msg: { jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's1', update: u } },
});

describe('session/load history replay', () => {
  it('is bracketed by reconciling markers and only keeps the session settings', () => {
    const frames: JsonValue[] = [
      { harness: 'turn.started', prompt: 'next question' },
      {
        dir: 'client->agent',
        msg: {
          jsonrpc: '2.0',
          id: 1,
          method: 'session/load',
          params: { sessionId: 's1', cwd: '/w', mcpServers: [] },
        },
      },
      update({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'old prompt' } }),
      update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'old answer' } }),
      update({ sessionUpdate: 'current_mode_update', currentModeId: 'plan' }),
      { dir: 'agent->client', msg: { jsonrpc: '2.0', id: 1, result: {} } },
      update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'new answer' } }),
    ];
    const { events } = translateAll(acpTranslator, records(frames));
    const kinds = events.map((e) => e.event.draft.kind);
    const markers = events
      .filter((e) => e.event.draft.kind === 'context.marker')
      .map((e) => e.event.draft.payload);
    expect(markers).toMatchObject([
      { markerKind: 'reconciling', phase: 'start' },
      { markerKind: 'reconciling', phase: 'end' },
    ]);
    expect(kinds).toContain('mode.updated');
    const texts = events.flatMap((e) =>
      e.event.draft.kind === 'message.completed' ? [e.event.draft.payload.text] : [],
    );
    expect(texts).toEqual(['next question', 'new answer']);
    expect(events.find((e) => e.event.draft.kind === 'session.started')?.event.draft.payload).toMatchObject({
      origin: 'load',
    });
  });
});
