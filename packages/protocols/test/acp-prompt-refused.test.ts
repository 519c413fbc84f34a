import { RequestError } from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import type { AcpBackend } from '../src/acp-agent/backend';
import { runPrompt } from '../src/acp-agent/prompt-run';
import { SessionPrompts } from '../src/acp-agent/session-prompts';

describe('a prompt the backend refuses', () => {
  it('is -32602 naming the field (a remote server refusing run.create with a 400 was an internal error)', async () => {
    const refusal = Object.assign(new Error('prompt must not be empty after trimming'), {
      status: 400,
      field: 'body.prompt',
    });
    const backend = {
      head: async () => 0,
      createRun: async () => {
        throw refusal;
      },
    } as unknown as AcpBackend;
    const active = new SessionPrompts();
    const error = await runPrompt({
      backend,
      client: {} as never,
      sessionId: 's1',
      prompt: 'x',
      active,
      entry: active.begin('s1'),
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestError);
    expect(error).toMatchObject({ code: -32602, data: { prompt: refusal.message } });
  });
});
