import { noCapabilities } from '@agentlane/contract';
import { expect } from 'vitest';
import type { SuiteContext } from './context';

/** SessionStore: the harness session bound to a thread. */
export function sessionTests(s: SuiteContext): void {
  const { test, newThread, code } = s;

  test('sessions: generation starts at 1 and increases only when the binding changes', async ({ store }) => {
    const threadId = await newThread();
    expect(await store.getSession(threadId)).toBeNull();
    const base = {
      threadId,
      provider: 'fake',
      engine: 'fake',
      nativeSessionId: 'n1',
      runtimeBinding: { pid: 1 },
      protocolVersion: '1',
      capabilities: noCapabilities(),
    };
    expect((await store.bindSession(base)).generation).toBe(1);
    expect((await store.bindSession({ ...base, protocolVersion: '2' })).generation).toBe(1);
    expect((await store.bindSession({ ...base, nativeSessionId: 'n2' })).generation).toBe(2);
    const third = await store.bindSession({ ...base, nativeSessionId: 'n2', runtimeBinding: { pid: 2 } });
    expect(third.generation).toBe(3);
    expect(await store.getSession(threadId)).toMatchObject({
      generation: 3,
      nativeSessionId: 'n2',
      protocolVersion: '1',
    });
    expect(await code(store.bindSession({ ...base, threadId: 'missing' }))).toBe('not_found');

    expect(await code(store.createRun({ threadId, prompt: 'p', expectedGeneration: 2 }))).toBe(
      'stale_generation',
    );
    expect((await store.createRun({ threadId, prompt: 'p', expectedGeneration: 3 })).created).toBe(true);
  });

  test('sessions: the row written at creation (never bound) leaves the first real binding at generation 1', async ({
    store,
  }) => {
    const threadId = await newThread();
    const placeholder = {
      threadId,
      provider: 'fake',
      engine: 'fake',
      nativeSessionId: null,
      runtimeBinding: {},
      protocolVersion: '',
      capabilities: noCapabilities(),
    };
    expect((await store.bindSession(placeholder)).generation).toBe(1);
    const bound = { ...placeholder, nativeSessionId: 'n1', runtimeBinding: { pid: 1 }, protocolVersion: '1' };
    // Before: 2, and the engine reported a new session as resumed.
    expect((await store.bindSession(bound)).generation).toBe(1);
    expect((await store.bindSession({ ...bound, runtimeBinding: { pid: 2 } })).generation).toBe(2);
  });
}
