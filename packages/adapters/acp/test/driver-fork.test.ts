import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { JsonValue } from '@agentlane/contract';
import { type EngineSession, ForkRefusedError, type SessionBinding } from '@agentlane/engine-kit';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createDriver } from '../src';

// The ACP fork against a real peer over stdio (test/__fixtures__/eager-agent.mjs; with --fork it advertises
// sessionCapabilities.fork and answers session/fork). Claude Code's fork is tested end to end in
// testing/engines/test/acp-fork-http.test.ts.
const agent = fileURLToPath(new URL('./__fixtures__/eager-agent.mjs', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'agentlane-acp-fork-'));
const forking = createDriver({
  name: 'forking',
  command: process.execPath,
  args: [agent, '--fork'],
  homeRoot: root,
});
const plain = createDriver({ name: 'plain', command: process.execPath, args: [agent], homeRoot: root });

const open: EngineSession[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});
afterAll(() => rmSync(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }));

async function openWith(driver: typeof forking, frames: JsonValue[], previous?: SessionBinding) {
  const session = await driver.openSession({
    threadId: 'thr_fork',
    workDir: root,
    generation: 1,
    ...(previous ? { previous } : {}),
    emit: (frame) => frames.push(frame),
  });
  open.push(session);
  return session;
}

const harness = (frames: JsonValue[], kind: string) =>
  frames.filter((f) => (f as { harness?: string }).harness === kind) as Record<string, JsonValue>[];
const sent = (frames: JsonValue[], method: string) =>
  frames.filter((f) => {
    const w = f as { dir?: string; msg?: { method?: string } };
    return w.dir === 'client->agent' && w.msg?.method === method;
  }) as { msg: { params: Record<string, JsonValue> } }[];

describe('ACP driver: forkSession', () => {
  it('copies the HOME; the fork’s first open asks for session/fork of the origin there', async () => {
    const origin = await openWith(forking, []);
    const source = origin.binding;
    expect(source.runtimeBinding.sessionFork).toBe(true);
    const home = String(source.runtimeBinding.home);
    writeFileSync(join(home, 'transcript.jsonl'), 'the first turn\n');

    await expect(
      forking.forkSession?.({ source, workDir: root, point: { atEnd: false, nativeMessageIds: [] } }),
    ).rejects.toBeInstanceOf(ForkRefusedError);
    const forked = await forking.forkSession?.({
      source,
      workDir: root,
      point: { atEnd: true, nativeMessageIds: [] },
    });
    const copy = String(forked?.runtimeBinding.home);
    expect(forked).toMatchObject({
      nativeSessionId: null,
      runtimeBinding: { forkOf: source.nativeSessionId },
    });
    expect(copy).not.toBe(home);
    expect(readFileSync(join(copy, 'transcript.jsonl'), 'utf8')).toBe('the first turn\n');
    // Written to the origin after the fork: not in the copy.
    writeFileSync(join(home, 'later.jsonl'), 'a later turn\n');
    expect(existsSync(join(copy, 'later.jsonl'))).toBe(false);

    const frames: JsonValue[] = [];
    const fork = await openWith(forking, frames, forked);
    expect(sent(frames, 'session/fork').map((f) => f.msg.params.sessionId)).toEqual([source.nativeSessionId]);
    expect(sent(frames, 'session/new')).toEqual([]);
    expect(harness(frames, 'session.bound')[0]).toMatchObject({ origin: 'fork' });
    expect(fork.binding.nativeSessionId).toMatch(new RegExp(`^fork-of-${source.nativeSessionId}`));
    expect(fork.binding.runtimeBinding.home).toBe(copy);
    // Bound now: a later open continues the fork's own session, not the origin's.
    expect(fork.binding.runtimeBinding.forkOf).toBeUndefined();
  });

  it('refuses a session whose agent did not advertise fork; a fork the agent refuses starts a new session', async () => {
    const source = (await openWith(plain, [])).binding;
    expect(source.runtimeBinding.sessionFork).toBe(false);
    await expect(
      plain.forkSession?.({ source, workDir: root, point: { atEnd: true, nativeMessageIds: [] } }),
    ).rejects.toThrow(/did not advertise session\/fork/);

    const forkable = (await openWith(forking, [])).binding;
    const forked = await forking.forkSession?.({
      source: forkable,
      workDir: root,
      point: { atEnd: true, nativeMessageIds: [] },
    });
    // The same HOME opened by an agent that does not fork (it stopped advertising it).
    const frames: JsonValue[] = [];
    const session = await openWith(plain, frames, forked);
    expect(sent(frames, 'session/fork')).toEqual([]);
    expect(harness(frames, 'engine.error')[0]?.message).toContain('could not fork session');
    expect(harness(frames, 'session.bound')[0]).toMatchObject({ origin: 'new' });
    expect(session.binding.nativeSessionId).toMatch(/^sess-/);
  });
});
