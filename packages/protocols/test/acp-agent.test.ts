import { client, type RequestPermissionRequest, type SessionNotification } from '@agentclientprotocol/sdk';
import { MAX_PROMPT_CHARS } from '@agentlane/server';
import { afterEach, describe, expect, it } from 'vitest';
import { acpAgent, advertisedCapabilities } from '../src/acp-agent/acp-agent';
import { localAcpBackend } from '../src/acp-agent/backend';
import { agentText } from './support/acp-text';
import { type Stack, startStack } from './support/stack';

/** The SDK's client side connected to agentlane's ACP agent (the SDK's in-memory link between the two). */
/** `answer`: the kind of option to pick (allow / reject), or an option's name. */
function connect(stack: Stack, engine: string, answer = 'allow') {
  const updates: SessionNotification[] = [];
  const asked: string[] = [];
  const requests: RequestPermissionRequest[] = [];
  const conn = client({ name: 'test-client' })
    .onNotification('session/update', ({ params }) => {
      updates.push(params);
    })
    .onRequest('session/request_permission', ({ params }) => {
      asked.push(params.toolCall.toolCallId);
      requests.push(params);
      const named = params.options.find((o) => o.name === answer);
      if (named) return { outcome: { outcome: 'selected', optionId: named.optionId } };
      const option = params.options.find((o) => o.kind.startsWith(answer));
      return {
        outcome: option ? { outcome: 'selected', optionId: option.optionId } : { outcome: 'cancelled' },
      };
    })
    .connect(
      acpAgent({
        backend: localAcpBackend({ store: stack.store, lane: stack.lane, engines: stack.engines, engine }),
      }),
    );
  return { conn, updates, asked, requests };
}

describe('agentlane as an ACP agent (the SDK client side as the client)', () => {
  let stack: Stack | undefined;
  afterEach(async () => {
    await stack?.stop();
    stack = undefined;
  });

  it('built-in engine: new session, prompt with a permission request, then list and load from the store', async () => {
    stack = await startStack([
      {
        text: 'Writing it.',
        toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'a' }, id: 'c1' }],
      },
      { text: 'Done.' },
    ]);
    const { conn, updates, asked } = connect(stack, 'builtin');
    const init = await conn.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    expect(init.agentCapabilities?.loadSession).toBe(true);
    const { sessionId } = await conn.agent.request('session/new', { cwd: '/tmp', mcpServers: [] });
    const result = await conn.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'Write a.txt' }],
    });
    expect(result.stopReason).toBe('end_turn');
    expect(asked).toEqual(['c1']);
    expect(agentText(updates)).toBe('Writing it.Done.');
    const kinds = new Set(updates.map((u) => u.update.sessionUpdate));
    expect([...kinds]).toEqual(
      expect.arrayContaining(['tool_call', 'tool_call_update', 'agent_message_chunk']),
    );
    expect(
      updates.find((u) => u.update.sessionUpdate === 'tool_call_update' && u.update.status === 'completed'),
    ).toBeDefined();

    const list = await conn.agent.request('session/list', {});
    expect(list.sessions.map((s) => s.sessionId)).toContain(sessionId);

    // A second client (another process in real life) loads the session: the history comes from the store.
    const other = connect(stack, 'builtin');
    await other.conn.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    await other.conn.agent.request('session/load', { sessionId, cwd: '/tmp', mcpServers: [] });
    const first = other.updates[0]?.update;
    expect(first).toMatchObject({ sessionUpdate: 'user_message_chunk', content: { text: 'Write a.txt' } });
    expect(agentText(other.updates)).toBe('Writing it.Done.');
    await other.conn.agent.request('session/resume', { sessionId, cwd: '/tmp', mcpServers: [] });
    conn.close();
    other.conn.close();
  });

  it("a question as session/request_permission (one option per choice and a decline); initialize says the engine's flags", async () => {
    stack = await startStack([
      {
        toolCalls: [
          { name: 'ask_user', arguments: { prompt: 'Which colour?', choices: ['red', 'blue'] }, id: 'q1' },
        ],
      },
      { text: 'Blue it is.' },
    ]);
    const { conn, updates, requests } = connect(stack, 'builtin', 'blue');
    const before = await conn.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    // No session of the engine opened yet: its flags are unknown, so no resume is promised.
    expect(before.agentCapabilities?._meta).toEqual({ agentlane: { engine: 'builtin', capabilities: null } });
    expect(before.agentCapabilities?.sessionCapabilities?.resume).toBeUndefined();
    const { sessionId } = await conn.agent.request('session/new', { cwd: '/tmp', mcpServers: [] });
    const result = await conn.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'Pick a colour' }],
    });
    expect(result.stopReason).toBe('end_turn');
    expect(agentText(updates)).toBe('Blue it is.');
    const resolved = (await stack.store.latestEvents({ threadId: sessionId })).find(
      (r) => r.event.kind === 'question.resolved',
    )?.event;
    expect(resolved?.payload).toMatchObject({ outcome: 'answered', answer: { choiceIds: ['c2'] } });
    // Asked as a permission request: the question as its title, the choices, then a decline.
    expect(requests[0]?.toolCall.title).toBe('Which colour?');
    expect(requests[0]?.options.map((o) => [o.name, o.kind])).toEqual([
      ['red', 'allow_once'],
      ['blue', 'allow_once'],
      ['Decline', 'reject_once'],
    ]);

    // The engine's session is open now: initialize advertises its negotiated flags.
    const session = await stack.store.getSession(sessionId);
    const after = connect(stack, 'builtin');
    const init = await after.conn.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    expect(init.agentCapabilities?._meta).toEqual({
      agentlane: { engine: 'builtin', capabilities: session?.capabilities },
    });
    expect(init.agentCapabilities).toEqual(advertisedCapabilities('builtin', session?.capabilities));
    expect(init.agentCapabilities?.sessionCapabilities?.resume !== undefined).toBe(
      Boolean(session?.capabilities.resume || session?.capabilities.load),
    );
    conn.close();
    after.conn.close();
  });

  it('replay: a recorded Claude Code session reaches the ACP client; an unknown session is refused', async () => {
    stack = await startStack([]);
    const { conn, updates, asked } = connect(stack, 'replay');
    await conn.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    const { sessionId } = await conn.agent.request('session/new', { cwd: '/tmp', mcpServers: [] });
    const toolCalls: string[][] = [];
    for (const text of ['go', 'again']) {
      const from = updates.length;
      const result = await conn.agent.request('session/prompt', {
        sessionId,
        prompt: [{ type: 'text', text }],
      });
      expect(result.stopReason).toBe('end_turn');
      expect(agentText(updates.slice(from))).toBe(
        'I will create hello.txt now.Done: hello.txt was written. (final answer from fake model)',
      );
      toolCalls.push(
        updates
          .slice(from)
          .flatMap((u) => (u.update.sessionUpdate === 'tool_call' ? [u.update.toolCallId] : [])),
      );
    }
    expect(updates.some((u) => u.update.sessionUpdate === 'agent_thought_chunk')).toBe(true);
    // The recording answers its own permission request: the client is not asked a question it cannot change.
    expect(asked).toEqual([]);
    expect(
      updates.some((u) => u.update.sessionUpdate === 'tool_call_update' && u.update.status === 'completed'),
    ).toBe(true);
    // Each turn has its own tool call ids, the first one's as recorded.
    expect(toolCalls[0]).toEqual(['toolu_fake_1']);
    expect(toolCalls[1]).toHaveLength(1);
    expect(toolCalls[1]?.[0]).not.toBe('toolu_fake_1');
    // ACP's own error form: JSON-RPC errors with ACP's codes.
    await expect(
      conn.agent.request('session/load', { sessionId: 'no-such-session', cwd: '/tmp', mcpServers: [] }),
    ).rejects.toMatchObject({ code: -32002 });
    await expect(
      conn.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: '   ' }] }),
    ).rejects.toMatchObject({ code: -32602 });
    // A relative cwd is the client's bad param (ACP requires an absolute one), not an internal error.
    await expect(
      conn.agent.request('session/new', { cwd: 'relative/dir', mcpServers: [] }),
    ).rejects.toMatchObject({ code: -32602, data: { cwd: 'must be an absolute path' } });
    // A prompt over the run route's bound, and a cursor nobody issued, are bad params too.
    await expect(
      conn.agent.request('session/prompt', {
        sessionId,
        prompt: [{ type: 'text', text: 'x'.repeat(MAX_PROMPT_CHARS + 1) }],
      }),
    ).rejects.toMatchObject({ code: -32602, data: { prompt: expect.stringContaining('characters') } });
    await expect(conn.agent.request('session/list', { cursor: 'garbage' })).rejects.toMatchObject({
      code: -32602,
      data: { cursor: expect.any(String) },
    });
    conn.close();
  });

  it('session/cancel in mid-turn: the run is cancelled and the prompt ends with stopReason cancelled', async () => {
    stack = await startStack([
      { text: Array.from({ length: 200 }, (_, i) => `slow${i} `).join(''), chunkSize: 6, chunkDelayMs: 50 },
    ]);
    const { conn, updates } = connect(stack, 'builtin');
    await conn.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    const { sessionId } = await conn.agent.request('session/new', { cwd: '/tmp', mcpServers: [] });
    const prompt = conn.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'go slowly' }],
    });
    for (const deadline = Date.now() + 20_000; agentText(updates).length < 20; ) {
      if (Date.now() > deadline) throw new Error('nothing streamed');
      await new Promise((r) => setTimeout(r, 20));
    }
    await conn.agent.notify('session/cancel', { sessionId });
    expect((await prompt).stopReason).toBe('cancelled');
    const runs = await stack.store.listRuns(sessionId);
    expect(runs.map((r) => r.outcome)).toEqual(['cancelled']);
    conn.close();
  }, 30_000);

  // Stop, then a new message at once (an editor's usual flow): the first prompt's end must not forget the
  // second, which a probe saw go on running through every later Stop.
  it('session/cancel reaches a prompt sent right after a cancel, once the cancelled one has ended', async () => {
    const slow = {
      text: Array.from({ length: 200 }, (_, i) => `slow${i} `).join(''),
      chunkSize: 6,
      chunkDelayMs: 50,
    };
    stack = await startStack([slow, slow]);
    const { conn, updates } = connect(stack, 'builtin');
    await conn.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    const { sessionId } = await conn.agent.request('session/new', { cwd: '/tmp', mcpServers: [] });
    const first = conn.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'one' }],
    });
    for (const deadline = Date.now() + 20_000; agentText(updates).length < 20; ) {
      if (Date.now() > deadline) throw new Error('nothing streamed');
      await new Promise((r) => setTimeout(r, 20));
    }
    await conn.agent.notify('session/cancel', { sessionId });
    const second = conn.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'two' }],
    });
    expect((await first).stopReason).toBe('cancelled');
    for (const deadline = Date.now() + 20_000; (await stack.store.listRuns(sessionId)).length < 2; ) {
      if (Date.now() > deadline) throw new Error('the second run was never created');
      await new Promise((r) => setTimeout(r, 20));
    }
    await conn.agent.notify('session/cancel', { sessionId });
    expect((await second).stopReason).toBe('cancelled');
    const runs = await stack.store.listRuns(sessionId);
    expect(runs.map((r) => r.outcome)).toEqual(['cancelled', 'cancelled']);
    conn.close();
  }, 40_000);
});
