import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDriver, type OpenCodeDriver } from '@agentlane/adapter-opencode';
import type { JsonValue } from '@agentlane/contract';
import type { HarnessFrame, TranslatedEvent } from '@agentlane/engine-kit';
import {
  type FakeModelServer,
  scripted,
  slowStream,
  startFakeModelServer,
  toolThenAnswer,
  writeFileTool,
} from '@agentlane/fake-model-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kindsOf, openCodeBinaryOrReason, RecordingIO } from './opencode-harness';

const { binary, reason } = openCodeBinaryOrReason();
if (reason) console.warn(`[skip] OpenCode driver tests: ${reason}`);

function openCodeConfig(fake: FakeModelServer): Record<string, JsonValue> {
  return {
    model: 'fake/fake-model',
    small_model: 'fake/fake-model',
    enabled_providers: ['fake'],
    permission: { edit: 'ask', bash: 'ask', webfetch: 'deny' },
    provider: {
      fake: {
        npm: '@ai-sdk/openai-compatible',
        name: 'Fake LLM',
        options: { baseURL: `${fake.url}/v1`, apiKey: 'dummy' },
        models: {
          'fake-model': {
            name: 'Fake Model',
            tool_call: true,
            reasoning: true,
            limit: { context: 128000, output: 8192 },
          },
          'fake-model-2': {
            name: 'Fake Model 2',
            tool_call: true,
            reasoning: true,
            limit: { context: 128000, output: 8192 },
          },
        },
      },
    },
  };
}

describe.skipIf(!binary)('OpenCode driver with the real pinned binary', () => {
  let fake: FakeModelServer;
  let home: string;
  let work: string;
  let driver: OpenCodeDriver;
  const threadId = 'thr_opencode_e2e';

  beforeAll(async () => {
    fake = await startFakeModelServer();
    home = await mkdtemp(join(tmpdir(), 'agentlane-oc-home-'));
    work = await mkdtemp(join(tmpdir(), 'agentlane-oc-work-'));
    driver = createDriver({ home, config: openCodeConfig(fake), settleMs: 150 });
  }, 240_000);

  afterAll(async () => {
    await driver?.dispose();
    await fake?.close();
    await rm(home, { recursive: true, force: true });
    await rm(work, { recursive: true, force: true });
  });

  let nativeSessionId: string | null = null;
  const allEvents: TranslatedEvent[] = [];

  it('writes a file after an approval answered through the harness, with the chosen model', async () => {
    const target = join(work, 'hello.txt');
    fake.setScenario(
      toolThenAnswer({
        tool: writeFileTool(target, 'Hello from agentlane!\n'),
        answer: 'Done: hello.txt is written.',
      }),
    );
    const io = new RecordingIO('run_1');
    const session = await driver.openSession({
      threadId,
      workDir: work,
      generation: 1,
      emit: (frame) => io.emit(frame),
    });
    nativeSessionId = session.binding.nativeSessionId;
    expect(nativeSessionId).toMatch(/^ses_/);
    io.emit({
      harness: 'turn.started',
      prompt: 'Create hello.txt',
      model: 'fake/fake-model-2',
    } satisfies HarnessFrame as unknown as JsonValue);
    const outcome = await session.runTurn(
      { threadId, runId: 'run_1', turnId: 'run_1', prompt: 'Create hello.txt', model: 'fake/fake-model-2' },
      io,
    );
    expect(outcome).toEqual({ outcome: 'completed' });
    expect(await readFile(target, 'utf8')).toBe('Hello from agentlane!\n');
    // The model picked through agentlane reached the provider.
    expect(fake.modelRequests().map((r) => r.model)).toContain('fake-model-2');

    const events = io.translate();
    const kinds = kindsOf(events);
    for (const kind of [
      'session.started',
      'session.metadata',
      'turn.started',
      'message.started',
      'message.delta',
      'reasoning.delta',
      'tool.started',
      'approval.requested',
      'approval.resolved',
      'tool.completed',
      'file.changed',
      'usage.updated',
      'message.completed',
      'turn.completed',
    ]) {
      expect(kinds, kind).toContain(kind);
    }
    expect(kinds).not.toContain('harness.warning');
    const approval = events.find((e) => e.draft.kind === 'approval.resolved');
    expect(approval?.draft.payload).toMatchObject({
      outcome: 'selected',
      optionId: 'once',
      decision: 'allow_once',
    });
    const completed = events.find((e) => e.draft.kind === 'turn.completed');
    expect(completed?.draft.payload).toMatchObject({ stopReason: 'end_turn' });
    allEvents.push(...events);
    const file = events.find((e) => e.draft.kind === 'file.changed');
    expect(file?.draft.payload).toMatchObject({ path: 'hello.txt' });
  }, 240_000);

  it('cancels mid-turn: the OpenCode session is aborted and the turn ends cancelled', async () => {
    fake.setScenario(slowStream({ chunks: 400, delayMs: 50 }));
    const io = new RecordingIO('run_2');
    const session = await driver.openSession({
      threadId,
      workDir: work,
      generation: 1,
      previous: {
        provider: 'opencode',
        nativeSessionId,
        runtimeBinding: {},
        protocolVersion: '',
        capabilities: {} as never,
      },
      emit: (frame) => io.emit(frame),
    });
    expect(session.binding.nativeSessionId).toBe(nativeSessionId);
    io.onFrame = (frame) => {
      const f = frame as { type?: string };
      if (f.type === 'message.part.delta' && !io.signal.aborted) {
        io.emit({ harness: 'turn.cancel_requested' } as JsonValue);
        io.abort.abort();
      }
    };
    io.emit({ harness: 'turn.started', prompt: 'Talk slowly' } as JsonValue);
    const started = Date.now();
    const outcome = await session.runTurn(
      { threadId, runId: 'run_2', turnId: 'run_2', prompt: 'Talk slowly' },
      io,
    );
    expect(outcome.outcome).toBe('cancelled');
    expect(Date.now() - started).toBeLessThan(15_000);
    const events = io.translate();
    const completed = events.filter((e) => e.draft.kind === 'turn.completed');
    expect(completed).toHaveLength(1);
    expect(completed[0]?.draft.payload).toMatchObject({ stopReason: 'cancelled' });
    await session.close();
  }, 240_000);

  it('reattaches to the same OpenCode session after a restart and continues the thread', async () => {
    await driver.dispose();
    driver = createDriver({ home, config: openCodeConfig(fake), settleMs: 150 });
    fake.setScenario(scripted([{ text: 'I remember: you asked for hello.txt.' }]));
    const before = fake.modelRequests().length;
    const io = new RecordingIO('run_3');
    const session = await driver.openSession({
      threadId,
      workDir: work,
      generation: 2,
      previous: {
        provider: 'opencode',
        nativeSessionId,
        runtimeBinding: {},
        protocolVersion: '',
        capabilities: {} as never,
      },
      emit: (frame) => io.emit(frame),
    });
    expect(session.binding.nativeSessionId).toBe(nativeSessionId);
    const outcome = await session.runTurn(
      { threadId, runId: 'run_3', turnId: 'run_3', prompt: 'What did I ask first?' },
      io,
    );
    expect(outcome).toEqual({ outcome: 'completed' });
    const request = fake.modelRequests()[before];
    // The continued session sends the earlier turns as history.
    expect(JSON.stringify(request?.body)).toContain('Create hello.txt');
    const events = io.translate();
    expect(events.find((e) => e.draft.kind === 'session.started')?.draft.payload).toMatchObject({
      origin: 'resume',
      generation: 2,
    });
    expect(
      events.some((e) => e.draft.kind === 'message.completed' && e.draft.payload.text.includes('I remember')),
    ).toBe(true);
    expect(existsSync(join(work, 'hello.txt'))).toBe(true);
    // The model list reaches the thread (in whichever turn the slow /config/providers answered).
    allEvents.push(...events);
    const metadata = allEvents.find(
      (e) => e.draft.kind === 'session.metadata' && e.draft.payload.availableModels,
    );
    expect(metadata?.draft.payload).toMatchObject({
      availableModels: expect.arrayContaining([{ id: 'fake/fake-model-2', name: 'Fake Model 2' }]),
    });
  }, 240_000);
});
