import type { Stream } from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { acpAgent } from '../src/acp-agent/acp-agent';
import type { AcpBackend } from '../src/acp-agent/backend';
import { screenedStream } from '../src/acp-agent/stdio-screen';

type Message = Record<string, unknown>;

/** A backend whose server is gone once a run started: every later call fails as fetch does. */
function lostServerBackend(): AcpBackend {
  let lost = false;
  const gone = async (): Promise<never> => {
    throw new TypeError('fetch failed');
  };
  return {
    engine: 'fake',
    engineCapabilities: async () => undefined,
    newSession: async () => 's1',
    hasSession: async () => true,
    listSessions: async () => ({ sessions: [], nextCursor: null }),
    history: async function* () {},
    head: async () => (lost ? gone() : 0),
    follow: async () => ({ close: () => {} }),
    createRun: async () => {
      lost = true;
      return 'r1';
    },
    runStatus: gone,
    answerApproval: gone,
    answerQuestion: gone,
    cancelRun: gone,
  };
}

/** The agent on screened in-memory streams: `send` a raw message, `answer(id)` waits for its response. */
function wire(backend: AcpBackend) {
  const input = new TransformStream<Message, Message>();
  const out: Message[] = [];
  const writable = new WritableStream<Message>({ write: (m) => void out.push(m) });
  const stream = { readable: input.readable, writable } as unknown as Stream;
  acpAgent({ backend, unreachableMs: 300 }).connect(screenedStream(stream));
  const writer = input.writable.getWriter();
  const send = (m: Message) => writer.write(m);
  const answer = async (id: unknown) => {
    for (let i = 0; i < 200; i++) {
      const found = out.find((m) => m.id === id && !('method' in m));
      if (found) return found;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`no answer to ${String(id)}`);
  };
  return { send, answer };
}

const init = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: 1, clientCapabilities: {} },
};

describe('agentlane acp: a lost server and malformed requests', () => {
  it('a prompt whose backend stays unreachable fails with a JSON-RPC error; the agent keeps serving', async () => {
    const { send, answer } = wire(lostServerBackend());
    await send(init);
    await answer(1);
    await send({ jsonrpc: '2.0', id: 2, method: 'session/new', params: { cwd: '/tmp', mcpServers: [] } });
    await answer(2);
    const prompt = [{ type: 'text', text: 'hi' }];
    await send({ jsonrpc: '2.0', id: 3, method: 'session/prompt', params: { sessionId: 's1', prompt } });
    await send({ jsonrpc: '2.0', method: 'session/cancel', params: { sessionId: 's1' } });
    const failed = await answer(3);
    expect(failed.error).toMatchObject({ code: -32603 });
    expect(JSON.stringify(failed.error)).toContain('fetch failed');
    await send({ jsonrpc: '2.0', id: 4, method: 'session/list', params: {} });
    expect(await answer(4)).toMatchObject({ result: { sessions: [] } });
  });

  it('-32600 with the readable id; resume not advertised is -32601; a pipelined request after initialize', async () => {
    const { send, answer } = wire(lostServerBackend());
    await send(init);
    await send({ jsonrpc: '2.0', id: 2, method: 'session/list', params: {} });
    expect(await answer(2)).toHaveProperty('result');
    await send({ jsonrpc: '2.0', id: 3, params: {} });
    await send({ id: 'x', method: 'session/list' });
    await send({ jsonrpc: '2.0', id: 5, method: 5 });
    await send({ jsonrpc: '2.0', id: 6, method: 'session/cancel', params: { sessionId: 's1' } });
    for (const id of [3, 'x', 5, 6]) expect((await answer(id)).error).toMatchObject({ code: -32600 });
    expect(JSON.stringify((await answer(6)).error)).toContain('notification');
    const resume = { sessionId: 's1', cwd: '/tmp', mcpServers: [] };
    await send({ jsonrpc: '2.0', id: 7, method: 'session/resume', params: resume });
    expect((await answer(7)).error).toMatchObject({ code: -32601 });
  });
});
