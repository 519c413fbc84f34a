import { answer, type FakeModelServer } from '@agentlane/fake-model-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post, ThreadStream } from '../opencode-stack';
import { type Canonical, done } from './api';
import { type Fixture, startFixture } from './fixture';

/** How many of the request bodies hold `text` (a count: a failure does not print whole system prompts). */
const holding = (bodies: string[], text: string) => bodies.filter((b) => b.includes(text)).length;

/** One engine that forks natively, as the suite starts it. */
export interface NativeForkEngine {
  /** The engine's configured name. */
  engine: string;
  /** agentlane around the engine (opencode-stack's startStack), on the fixture's fake model server. */
  start(fixture: Fixture): Promise<{ api: string; stop(): Promise<void> }>;
  /**
   * Resolves once the engine has stored its own transcript of a turn that answered `text` (engines write it
   * after answering: a fork copies what is stored).
   */
  stored?(fixture: Fixture, text: string): Promise<void>;
  /** OpenCode forks at any message; ACP's session/fork only at the session's end (the latest run). */
  forksMidThread: boolean;
}

type Session = {
  id: string;
  engine: string;
  title: string;
  nativeSessionId: string | null;
  metadata: unknown;
};
type ForkReply = { session: Session; forkedFrom: Record<string, unknown>; checkpointId?: string };

/**
 * POST /sessions/:id/fork {runId} against a real engine: the fork's first run sends the engine's history up
 * to that run (the fake model server sees it) and nothing the origin did after the fork point; the origin
 * keeps its native session and its own history.
 */
export function describeNativeFork(name: string, target: NativeForkEngine) {
  describe(`${name}: fork a thread after a run (native time travel)`, { timeout: 300_000 }, () => {
    let fixture: Fixture;
    let fake: FakeModelServer;
    let stack: { api: string; stop(): Promise<void> };
    let origin: string;
    let first: string;

    const session = async (id: string) =>
      ((await (await fetch(`${stack.api}/sessions/${id}`)).json()) as { session: Session }).session;
    /** Runs a prompt to its end; its canonical events. */
    const run = async (threadId: string, prompt: string, reply: string) => {
      fake.setScenario(answer(reply));
      const stream = new ThreadStream(`${stack.api}/threads/${threadId}/events`);
      const created = await post(`${stack.api}/threads/${threadId}/runs`, { prompt });
      expect(created.status, JSON.stringify(created.json)).toBe(201);
      const runId = (created.json as { run: { runId: string } }).run.runId;
      await stream.waitFor(done(runId));
      stream.close();
      return { runId, events: stream.canonical(runId) };
    };
    /** The model request bodies `act` made, as JSON text. */
    const sentDuring = async (act: () => Promise<unknown>) => {
      const before = fake.modelRequests().length;
      await act();
      return fake
        .modelRequests()
        .slice(before)
        .map((r) => JSON.stringify(r.body));
    };
    const fork = async (threadId: string, body: Record<string, unknown>) =>
      post(`${stack.api}/sessions/${threadId}/fork`, body);
    const origin_ = (events: Canonical[]) => {
      const started = events.find((e) => e.type === 'session.started');
      return started?.event.kind === 'session.started' ? started.event.payload.origin : undefined;
    };

    beforeAll(async () => {
      fixture = await startFixture(`agentlane-fork-${name}`);
      fake = fixture.fake;
      stack = await target.start(fixture);
    }, 60_000);

    afterAll(async () => {
      await stack?.stop();
      await fixture?.close();
    });

    it('the fork continues from the run; the origin’s later turns stay out of it and the origin is untouched', async () => {
      const created = await post(`${stack.api}/sessions`, {
        engine: target.engine,
        title: 'Origin',
        workDir: fixture.work,
      });
      expect(created.status).toBe(201);
      origin = (created.json as { session: Session }).session.id;
      first = (await run(origin, 'Remember the word mango.', 'Noted: mango.')).runId;
      await target.stored?.(fixture, 'Noted: mango.');
      const originNative = (await session(origin)).nativeSessionId;
      expect(originNative).toBeTruthy();

      const forked = await fork(origin, { runId: first });
      expect(forked.status, JSON.stringify(forked.json)).toBe(201);
      const reply = forked.json as ForkReply;
      expect(reply.forkedFrom).toMatchObject({ threadId: origin, runId: first, stageId: 'post-turn' });
      expect(reply.checkpointId).toBeUndefined();
      expect(reply.session).toMatchObject({ engine: target.engine, title: 'Origin (fork)' });
      expect(reply.session.metadata).toEqual({ forkedFrom: reply.forkedFrom });
      const forkId = reply.session.id;

      // The origin goes on past the fork point.
      await run(origin, 'Now remember the word papaya.', 'Noted: papaya.');

      let events: Canonical[] = [];
      const sent = await sentDuring(async () => {
        ({ events } = await run(forkId, 'Which word did I ask you to remember?', 'It was mango.'));
      });
      const prompted = sent.filter((body) => body.includes('Which word did I ask you to remember?'));
      expect(prompted.length).toBeGreaterThan(0);
      expect(
        prompted.some((b) => b.includes('Remember the word mango.') && b.includes('Noted: mango.')),
      ).toBe(true);
      expect(holding(sent, 'papaya'), 'requests holding the origin’s turn after the fork point').toBe(0);
      expect(origin_(events)).toBe('fork');
      const forkNative = (await session(forkId)).nativeSessionId;
      expect(forkNative).toBeTruthy();
      expect(forkNative).not.toBe(originNative);

      // The origin: the same native session, both of its turns, nothing of the fork's.
      const back = await sentDuring(() => run(origin, 'Which words so far?', 'Mango and papaya.'));
      const asked = back.filter((body) => body.includes('Which words so far?'));
      expect(asked.some((b) => b.includes('Noted: mango.') && b.includes('Noted: papaya.'))).toBe(true);
      expect(
        holding(back, 'Which word did I ask you to remember?'),
        'origin requests holding the fork’s turn',
      ).toBe(0);
      expect((await session(origin)).nativeSessionId).toBe(originNative);
    });

    it(
      target.forksMidThread
        ? 'a run that is not the latest is a fork point: the fork holds the turns up to it'
        : 'a run that is not the latest is refused (409 naming body.runId): the protocol forks only at the end',
      async () => {
        const forked = await fork(origin, { runId: first });
        if (!target.forksMidThread) {
          expect(forked.status).toBe(409);
          expect((forked.json as { error: { field: string } }).error.field).toBe('body.runId');
          return;
        }
        expect(forked.status, JSON.stringify(forked.json)).toBe(201);
        const forkId = (forked.json as ForkReply).session.id;
        const sent = await sentDuring(() => run(forkId, 'Tell me the word again.', 'Mango.'));
        const prompted = sent.filter((body) => body.includes('Tell me the word again.'));
        expect(prompted.some((b) => b.includes('Noted: mango.'))).toBe(true);
        expect(holding(sent, 'papaya'), 'requests holding the origin’s turn after the fork point').toBe(0);
      },
    );

    it('names the fork point it cannot use', async () => {
      const unknown = await fork(origin, { runId: 'no-such-run' });
      expect(unknown.status).toBe(404);
      expect((unknown.json as { error: { field: string } }).error.field).toBe('body.runId');
      const both = await fork(origin, { runId: first, checkpointId: 'x' });
      expect(both.status).toBe(400);
      expect((both.json as { error: { field: string } }).error.field).toBe('body');
    });
  });
}
