import type { Principal, ServerContext } from '@agentlane/server';
import { describe, expect, it } from 'vitest';
import { protocolThread } from '../src/protocol-thread';

// A probe told apart "another token's thread exists" (403 naming it) from "no such thread" (403: starting one
// needs an all-threads token) through the AG-UI and chat POSTs; every other route answers both the same.
describe('a protocol POST to a thread outside the token scope', () => {
  const ctx = {
    store: { getThread: async (id: string) => (id === 'theirs' ? { threadId: id, engine: 'e' } : undefined) },
    engines: { list: () => [{ name: 'e' }] },
  } as unknown as ServerContext;
  const alice: Principal = { name: 'alice', key: 'a', threads: new Set(['mine']) };
  const post = (threadId: string) =>
    protocolThread(ctx, alice, {
      threadId,
      engine: () => undefined,
      named: undefined,
      defaultEngine: undefined,
      noun: 'chat',
      field: 'body',
    }).catch((error: unknown) => error as { statusCode?: number; message: string });

  it('is the same 403 whether the thread exists or not', async () => {
    const existing = await post('theirs');
    const missing = await post('nobody');
    expect(existing).toMatchObject({ message: 'this token is not allowed to access thread "theirs"' });
    expect(missing).toMatchObject({ message: 'this token is not allowed to access thread "nobody"' });
  });
});
