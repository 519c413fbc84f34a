import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type AcpEngineConfig, createDriver } from '@agentlane/adapter-acp';
import {
  answer,
  type FakeModelServer,
  slowStream,
  toolThenAnswer,
  writeFileTool,
} from '@agentlane/fake-model-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post, startStack, ThreadStream } from '../opencode-stack';
import {
  APPROVED_WRITE_KINDS,
  answerApproval,
  type Canonical,
  cancelMidMessage,
  done,
  expectKinds,
  requestedApproval,
} from './api';
import { type Fixture, startFixture } from './fixture';

type Run = { run: { runId: string } };

/**
 * One ACP agent end to end through agentlane's HTTP API against the fake model server, in two engine
 * starts: a file write approved through the API, a cancel mid-message, then agentlane (and so the engine)
 * restarted and the same thread continued — the restarted engine sends the earlier turns with the new
 * prompt. `config` builds the preset for the fake's URL, asking for the model `fake-model` (checked: an
 * engine may swap an id it does not know for another); `entry` null skips with `why`.
 */
export function describeAcpAgent(
  name: string,
  entry: string | null,
  why: string,
  config: (entry: string, fake: FakeModelServer, homeRoot: string) => AcpEngineConfig,
) {
  if (!entry) {
    if (process.env.CI === 'true') throw new Error(why);
    console.warn(`[skip] ${name} end to end: ${why}`);
  }
  describe.skipIf(!entry)(`${name} end to end through agentlane’s HTTP API`, { timeout: 60_000 }, () => {
    let fixture: Fixture;
    let fake: FakeModelServer;
    let work: string;
    let stack: Awaited<ReturnType<typeof startStack>>;
    let threadId: string;
    const kinds = new Map<string, number>();
    const warnings = new Set<string>();

    const boot = async () => {
      const driver = createDriver(config(entry!, fake, join(fixture.dir, 'homes')));
      stack = await startStack({ db: join(fixture.dir, 'agentlane.db'), drivers: [driver], workDir: work });
    };
    const startRun = async (prompt: string) => {
      const created = await post(`${stack.api}/threads/${threadId}/runs`, { prompt });
      expect(created.status).toBe(201);
      return (created.json as Run).run.runId;
    };
    const count = (events: Canonical[]) => {
      for (const e of events) {
        kinds.set(e.type, (kinds.get(e.type) ?? 0) + 1);
        if (e.event.kind === 'harness.warning' || e.event.kind === 'harness.error')
          warnings.add(`${e.type}: ${e.event.payload.message}`);
      }
      return events;
    };
    const texts = (events: Canonical[]) =>
      events.flatMap((e) => (e.event.kind === 'message.completed' ? [e.event.payload.text] : []));

    beforeAll(async () => {
      fixture = await startFixture(`agentlane-acp-${name}`);
      ({ fake, work } = fixture);
      await boot();
    }, 30_000);

    afterAll(async () => {
      // The note on the agents (docs/engines-acp.md) quotes these counts.
      console.info(`[${name} e2e] canonical kinds: ${[...kinds].map(([k, n]) => `${k} ×${n}`).join(', ')}`);
      if (warnings.size > 0) console.info(`[${name} e2e] harness notes: ${[...warnings].join(' | ')}`);
      await stack?.stop();
      await fixture?.close();
    });

    it('writes a file once the approval is answered through the API, then a cancel ends the next turn', async () => {
      const target = join(work, 'hello.txt');
      fake.setScenario(
        toolThenAnswer({ tool: writeFileTool(target, 'Hello over HTTP!\n'), answer: 'Done: hello.txt.' }),
      );
      const session = await post(`${stack.api}/sessions`, { engine: name, title: 'e2e', workDir: work });
      expect(session.status, JSON.stringify(session.json)).toBe(201);
      threadId = (session.json as { session: { id: string } }).session.id;
      let stream = new ThreadStream(`${stack.api}/threads/${threadId}/events`);
      const runId = await startRun('Create hello.txt');
      await stream.waitFor((events) => events.some((e) => e.type === 'approval.requested'));
      const { payload, allowOnce } = requestedApproval(stream);
      expect(allowOnce).toBeDefined();
      await answerApproval(stack.api, runId, payload?.approvalId, allowOnce?.optionId);
      await stream.waitFor(done(runId));
      stream.close();
      expect(await readFile(target, 'utf8')).toBe('Hello over HTTP!\n');
      const events = count(stream.canonical(runId));
      const seen = events.map((e) => e.type);
      expectKinds(seen, ['session.started', 'turn.started', 'message.completed', 'turn.completed']);
      expectKinds(
        seen,
        APPROVED_WRITE_KINDS.filter((k) => k !== 'usage.updated' && k !== 'file.changed'),
      );
      expect(events.find((e) => e.type === 'approval.resolved')?.event.payload).toMatchObject({
        outcome: 'selected',
        decision: 'allow_once',
      });
      expect(texts(events)).toContain('Done: hello.txt.');
      expect(new Set(fake.modelRequests().map((r) => r.model))).toEqual(new Set(['fake-model']));
      expect(events.find((e) => e.type === 'turn.completed')?.event.payload).toMatchObject({
        stopReason: 'end_turn',
      });
      fake.setScenario(slowStream({ chunks: 400, delayMs: 50 }));
      stream = new ThreadStream(`${stack.api}/threads/${threadId}/events`);
      const cancelled = await startRun('Talk slowly');
      await cancelMidMessage(stack.api, stream, cancelled);
      const ended = count(stream.canonical(cancelled)).filter((e) => e.type === 'turn.completed');
      expect(ended).toHaveLength(1);
      expect(ended[0]?.event.payload).toMatchObject({ stopReason: 'cancelled' });
      const run = (await (await fetch(`${stack.api}/runs/${cancelled}`)).json()) as { run: unknown };
      expect(run.run).toMatchObject({ status: 'completed', outcome: 'cancelled', error: null });
    });

    it('after a restart the engine continues the same session', async () => {
      await stack.stop();
      fake.setScenario(answer('Still here after the restart.'));
      const before = fake.modelRequests().length;
      await boot();
      const stream = new ThreadStream(`${stack.api}/threads/${threadId}/events`);
      const runId = await startRun('Which file did you create?');
      await stream.waitFor(done(runId));
      stream.close();
      const events = count(stream.canonical(runId));
      const started = events.find((e) => e.type === 'session.started');
      const payload = started?.event.kind === 'session.started' ? started.event.payload : null;
      expect(payload?.generation).toBeGreaterThan(1);
      expect(['load', 'resume']).toContain(payload?.origin);
      // The history an engine replays on load adds nothing: the new run holds its prompt and its answer only.
      expect(texts(events)).toEqual(['Which file did you create?', 'Still here after the restart.']);
      // The restarted engine sent the earlier turn with the new prompt.
      const sent = JSON.stringify(
        fake
          .modelRequests()
          .slice(before)
          .map((r) => r.body),
      );
      expect(sent).toContain('Create hello.txt');
    });
  });
}
