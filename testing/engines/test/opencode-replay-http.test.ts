import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { recordedSessionDrivers, recordedSessions } from '@agentlane/adapter-replay';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post, startStack, ThreadStream } from './opencode-stack';

/** What `npm start` offers without any API key: the recorded sessions, streamed through the real lane. */
describe('recorded sessions replayed through agentlane’s HTTP API', () => {
  let dir: string;
  let stack: Awaited<ReturnType<typeof startStack>>;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentlane-replay-http-'));
    stack = await startStack({
      db: join(dir, 'a.db'),
      drivers: recordedSessionDrivers({ speed: 0 }),
      workDir: dir,
    });
  });

  afterAll(async () => {
    await stack?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  for (const recording of recordedSessions()) {
    it(`${recording.name} streams a whole turn, labelled as a replay`, async () => {
      expect(recording.label).toMatch(/^Replay/);
      const session = await post(`${stack.api}/sessions`, { engine: recording.name, title: recording.label });
      expect(session.status).toBe(201);
      const threadId = (session.json as { session: { id: string } }).session.id;
      const stream = new ThreadStream(`${stack.api}/threads/${threadId}/events`);
      const created = await post(`${stack.api}/threads/${threadId}/runs`, { prompt: 'replay' });
      const runId = (created.json as { run: { runId: string } }).run.runId;
      await stream.waitFor(
        (events) => events.some((e) => e.type === 'run.canonicalized' && e.runId === runId),
        60_000,
      );
      stream.close();
      const kinds = stream.canonical(runId).map((e) => e.type);
      for (const kind of [
        'session.started',
        'turn.started',
        'message.delta',
        'tool.started',
        'tool.completed',
        'turn.completed',
      ]) {
        expect(kinds, kind).toContain(kind);
      }
      expect(kinds).not.toContain('harness.error');
    }, 90_000);
  }
});
