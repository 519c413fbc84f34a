import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  chunk,
  counter,
  hostileServer,
  ROLE,
  runTurn,
  STOP,
  sse,
  textFrames,
  warnings,
  workspace,
} from './hostile-model';

// What a model server sends that the turn keeps (its checkpointed conversation, its events): a probe's server
// echoed the key into a tool call's id and name, sent a lone surrogate, answered with a redirect, sent a
// usage count as a string, and named tool calls with control characters.

const model = hostileServer();
const work = workspace('rt-echoes-');
const KEY = 'sk-echo-SECRET-0123456789';

/** A tool call with this id and name, then the answer `done` once the result is back. */
function callThenAnswer(id: string, name: string) {
  return [
    sse([
      ROLE,
      chunk({ tool_calls: [{ index: 0, id, type: 'function', function: { name, arguments: '{}' } }] }),
      chunk({}, 'tool_calls'),
      'data: [DONE]\n\n',
    ]),
    sse(textFrames('done')),
  ];
}

/** Another origin a redirect points at: it must never be asked. */
const elsewhere = { url: '', hits: 0 };
const other = createServer((_req, res) => {
  elsewhere.hits++;
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end(textFrames('from elsewhere').join(''));
});
beforeAll(async () => {
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
  elsewhere.url = `http://127.0.0.1:${(other.address() as AddressInfo).port}/v1/chat/completions`;
});
afterAll(async () => {
  other.closeAllConnections();
  await new Promise((resolve) => other.close(resolve));
});

describe('what the model server echoes does not reach the checkpoint', () => {
  it('a key echoed in a tool call id and tool name is in no event and not in the checkpoint', async () => {
    const { tool } = counter();
    model.script(...callThenAnswer(`id-${KEY}`, `tool-${KEY}`));
    const r = await runTurn(model.url, work.dir, { apiKey: KEY, tools: [tool] });
    expect(r.outcome.outcome).toBe('completed');
    // Before: events were redacted, the checkpoint's conversation kept both in clear.
    expect(JSON.stringify(r.checkpoint)).not.toContain('SECRET');
    expect(JSON.stringify(r.events)).not.toContain('SECRET');
    const call = r.events.find((e) => e.kind === 'tool.started')?.payload as { toolCallId: string };
    expect(call.toolCallId).toMatch(/^call_[0-9a-f]{24}$/);
  });

  it('a tool call id with control characters or over 64 characters is renamed, the same way every time', async () => {
    for (const id of ['nl\nid\u0000x', 'x'.repeat(70_000), 'rtl\u202Eid']) {
      const { tool } = counter();
      model.script(...callThenAnswer(id, 'count'));
      const r = await runTurn(model.url, work.dir, { tools: [tool] });
      expect(r.outcome.outcome).toBe('completed');
      const ids = r.events.flatMap((e) =>
        e.kind.startsWith('tool.') ? [(e.payload as { toolCallId: string }).toolCallId] : [],
      );
      expect(ids.length).toBeGreaterThan(0);
      expect(new Set(ids).size).toBe(1);
      expect(ids[0]).toMatch(/^call_[0-9a-f]{24}$/);
    }
  });

  it('a lone surrogate in the answer is U+FFFD; the turn and its checkpoint are kept', async () => {
    model.script(sse([ROLE, chunk({ content: 'lone \ud800 here' }), ...STOP]));
    const r = await runTurn(model.url, work.dir);
    // Before: the turn failed at its checkpoint ("topic snapshot value needs a JSON array").
    expect(r.outcome).toEqual({ outcome: 'completed' });
    expect(JSON.stringify(r.checkpoint)).toContain('lone \ufffd here');
  });

  it('a usage count sent as a string is dropped, not a failed turn', async () => {
    const usage = { prompt_tokens: 'NaN', completion_tokens: 2, total_tokens: 'lots' };
    model.script(
      sse([
        ROLE,
        chunk({ content: 'ok' }),
        chunk({}, 'stop').replace(
          '"finish_reason":"stop"}]',
          `"finish_reason":"stop"}],"usage":${JSON.stringify(usage)}`,
        ),
        'data: [DONE]\n\n',
      ]),
    );
    const r = await runTurn(model.url, work.dir);
    expect(r.outcome).toEqual({ outcome: 'completed' });
  });

  it('a planning call that fails says why in the timeline, as every other call does', async () => {
    model.script(sse(['data: {not json\n\n']));
    const r = await runTurn(model.url, work.dir, { plan: true });
    expect(r.outcome.outcome).toBe('failed');
    // Before: only turn.completed {stopReason: error}; the reason was in the run's error alone.
    expect(warnings(r.events).map((w) => w.code)).toContain('builtin.model_stream_error');
  });

  it('a redirect is not followed: the turn fails saying so, and the other address is never asked', async () => {
    for (const status of [307, 302]) {
      model.script((_req, res) => {
        res.writeHead(status, { location: elsewhere.url });
        res.end();
      });
      const r = await runTurn(model.url, work.dir);
      expect(r.outcome.outcome).toBe('failed');
      expect(r.outcome.error).toMatch(/redirect/);
    }
    expect(elsewhere.hits).toBe(0);
  });
});
