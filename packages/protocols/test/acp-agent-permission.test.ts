import type { Stream } from '@agentclientprotocol/sdk';
import type { CanonicalEvent, StreamEvent } from '@agentlane/contract';
import { describe, expect, it } from 'vitest';
import { acpAgent } from '../src/acp-agent/acp-agent';
import type { AcpApprovalAnswer, AcpBackend } from '../src/acp-agent/backend';

type Message = Record<string, unknown>;

const event = (seq: number, kind: string, payload: unknown) =>
  ({
    deliverySeq: seq,
    event: { kind, payload, runId: 'r1', threadId: 's1', eventId: `ev${seq}`, seq, ts: '' },
  }) as unknown as StreamEvent & { event: CanonicalEvent };

/**
 * A backend whose run asks one approval and, once it is answered, ends its turn as the lane does: a cancelled
 * answer ends it `cancelled`. An option the approval did not offer is refused, as the server's route does.
 */
function approvalBackend() {
  const answers: AcpApprovalAnswer[] = [];
  const prompts: string[] = [];
  let listener: ((e: StreamEvent) => void) | undefined;
  const backend: AcpBackend = {
    engine: 'fake',
    engineCapabilities: async () => undefined,
    newSession: async () => 's1',
    hasSession: async () => true,
    listSessions: async () => ({ sessions: [], nextCursor: null }),
    history: async function* () {},
    head: async () => 0,
    async follow(_thread, _after, l) {
      listener = l;
      l(
        event(1, 'approval.requested', {
          approvalId: 'a1',
          title: 'Write a.txt',
          subject: { type: 'tool' },
          options: [
            { optionId: 'allow', label: 'Allow', kind: 'allow_once' },
            { optionId: 'reject', label: 'Reject', kind: 'reject_once' },
          ],
        }),
      );
      return { close: () => {} };
    },
    createRun: async (_thread, prompt) => {
      prompts.push(prompt);
      return 'r1';
    },
    runStatus: async () => (answers.length > 0 ? 'completed' : 'running'),
    async answerApproval(_run, _approval, answer) {
      if (answer.outcome === 'selected' && !['allow', 'reject'].includes(answer.optionId))
        throw Object.assign(new Error('optionId is not one this approval offered'), { status: 400 });
      answers.push(answer);
      listener?.(event(2, 'turn.completed', { stopReason: 'cancelled' }));
      listener?.({ type: 'run.status', threadId: 's1', runId: 'r1', status: 'completed' } as StreamEvent);
    },
    answerQuestion: async () => {},
    cancelRun: async () => {},
  };
  return { backend, answers, prompts };
}

/** The agent on in-memory streams: `send` a raw message, `next(pred)` waits for a message the agent wrote. */
function wire(backend: AcpBackend) {
  const input = new TransformStream<Message, Message>();
  const out: Message[] = [];
  const writable = new WritableStream<Message>({ write: (m) => void out.push(m) });
  acpAgent({ backend }).connect({ readable: input.readable, writable } as unknown as Stream);
  const writer = input.writable.getWriter();
  const next = async (what: string, pred: (m: Message) => boolean) => {
    for (let i = 0; i < 400; i++) {
      const found = out.find(pred);
      if (found) return found;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`no ${what}`);
  };
  return { send: (m: Message) => writer.write(m), next };
}

async function promptedUntilAsked(backend: AcpBackend) {
  const { send, next } = wire(backend);
  await send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1 } });
  await next('initialize', (m) => m.id === 1);
  const prompt = [{ type: 'text', text: 'Write a.txt' }];
  await send({ jsonrpc: '2.0', id: 2, method: 'session/prompt', params: { sessionId: 's1', prompt } });
  const asked = await next('permission request', (m) => m.method === 'session/request_permission');
  return { send, next, askedId: asked.id };
}

describe('agentlane acp: a permission response that answers nothing cancels the request', () => {
  const responses: [string, Message][] = [
    [
      'an optionId the request did not offer',
      { result: { outcome: { outcome: 'selected', optionId: 'bogus' } } },
    ],
    ['a JSON-RPC error', { error: { code: -32603, message: 'the client failed' } }],
  ];
  for (const [what, response] of responses) {
    it(`${what}: the approval is answered cancelled and session/prompt ends with a stop reason`, async () => {
      const { backend, answers } = approvalBackend();
      const { send, next, askedId } = await promptedUntilAsked(backend);
      await send({ jsonrpc: '2.0', id: askedId, ...response });
      const ended = await next('the prompt response', (m) => m.id === 2 && !('method' in m));
      expect(ended).toMatchObject({ result: { stopReason: 'cancelled' } });
      expect(answers).toEqual([{ outcome: 'cancelled' }]);
    });
  }

  it('a prompt with a NUL or a lone surrogate is -32602 naming the problem; no run is created', async () => {
    const { backend, prompts } = approvalBackend();
    const { send, next } = wire(backend);
    await send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1 } });
    await next('initialize', (m) => m.id === 1);
    const cases: [number, string, RegExp][] = [
      [3, 'a\u0000b', /NUL/],
      [4, 'a\ud800b', /surrogate/],
    ];
    for (const [id, text, problem] of cases) {
      await send({
        jsonrpc: '2.0',
        id,
        method: 'session/prompt',
        params: { sessionId: 's1', prompt: [{ type: 'text', text }] },
      });
      const answer = await next(`answer ${id}`, (m) => m.id === id);
      expect(answer.error).toMatchObject({ code: -32602 });
      expect(JSON.stringify(answer.error)).toMatch(problem);
    }
    expect(prompts).toEqual([]);
  });
});
