import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuditableCall, CanonicalEventDraft, JsonValue } from '@agentlane/contract';
import type {
  ApprovalAnswer,
  ArtifactContent,
  EngineDriver,
  TurnIO,
  TurnOutcome,
} from '@agentlane/engine-kit';
import { type FakeModelServer, type ModelReply, startFakeModelServer } from '@agentlane/fake-model-server';
import { afterAll, beforeAll } from 'vitest';
import { createDriver, runtimeTranslator } from '../src/index';

/** A fake model server and a workspace folder for a test file: started before its tests, removed after. */
export function fakeModelAndWorkspace(prefix: string): {
  readonly fake: FakeModelServer;
  readonly work: string;
} {
  const env = {} as { fake: FakeModelServer; work: string };
  beforeAll(async () => {
    env.fake = await startFakeModelServer({ script: [{ text: 'ok' }] });
    env.work = await mkdtemp(join(tmpdir(), prefix));
  });
  afterAll(async () => {
    await env.fake?.close();
    if (env.work) await rm(env.work, { recursive: true, force: true });
  });
  return env;
}

/**
 * A driver on the fake model server's Chat Completions API without the anchor-plan stage; `over` may hold any
 * config key, also a wrong one (tests of config errors).
 */
export function chatDriver(fakeUrl: string, over: Record<string, unknown> = {}) {
  return createDriver({
    api: 'openai-chat',
    model: 'fake-model',
    baseURL: `${fakeUrl}/v1`,
    apiKey: 'k',
    plan: false,
    ...over,
  });
}

/**
 * A delegating turn with known usage per call: the parent calls `task` (100 in / 10 out), the child lists the
 * files (200 / 20) and answers (300 / 30), the parent answers (400 / 40). The child is `thr_test:task:call_u`.
 */
export const DELEGATING_TURN: ModelReply[] = [
  {
    toolCalls: [{ name: 'task', arguments: { description: 'd', prompt: 'count' }, id: 'call_u' }],
    usage: { inputTokens: 100, outputTokens: 10 },
  },
  {
    toolCalls: [{ name: 'list_files', arguments: {}, id: 'call_l' }],
    usage: { inputTokens: 200, outputTokens: 20 },
  },
  { text: 'child done', usage: { inputTokens: 300, outputTokens: 30 } },
  { text: 'parent done', usage: { inputTokens: 400, outputTokens: 40 } },
];

/** An `approve` for runTurn that allows every call and records the approval ids it was asked. */
export function allowAndRecord(): { asked: string[]; approve: (approvalId: string) => ApprovalAnswer } {
  const asked: string[] = [];
  return {
    asked,
    approve: (approvalId) => {
      asked.push(approvalId);
      return { outcome: 'selected', optionId: 'allow' };
    },
  };
}

/** Runs one turn of a driver with an in-memory TurnIO (approvals answered by `approve`), then translates it. */
export async function runTurn(
  driver: EngineDriver,
  options: {
    prompt: string;
    workDir: string;
    approve?: (approvalId: string) => ApprovalAnswer;
    signal?: AbortSignal;
    onFrame?: (frame: JsonValue) => void;
  },
) {
  const frames: JsonValue[] = [];
  const emit = (f: JsonValue) => {
    frames.push(f);
    options.onFrame?.(f);
  };
  const session = await driver.openSession({
    threadId: 'thr_test',
    workDir: options.workDir,
    generation: 1,
    emit,
  });
  emit({ harness: 'turn.started', prompt: options.prompt });
  const io: TurnIO = {
    emit,
    signal: options.signal ?? new AbortController().signal,
    awaitApproval: async (approvalId) => {
      const answer = options.approve?.(approvalId) ?? { outcome: 'selected', optionId: 'allow' };
      emit({ harness: 'approval.answered', approvalId, ...answer } as JsonValue);
      return answer;
    },
    awaitQuestion: async (questionId) => {
      emit({ harness: 'question.answered', questionId, outcome: 'answered', text: 'yes' });
      return { outcome: 'answered', text: 'yes' };
    },
  };
  const outcome: TurnOutcome = await session.runTurn(
    { threadId: 'thr_test', runId: 'run_test', turnId: 'run_test', prompt: options.prompt },
    io,
  );
  emit({
    harness: 'turn.ended',
    outcome: outcome.outcome,
    ...(outcome.error ? { error: outcome.error } : {}),
  });
  return { outcome, frames, ...translate(frames) };
}

export function translate(frames: JsonValue[]) {
  const ctx = { threadId: 'thr_test', runId: 'run_test', turnId: 'run_test', provider: 'builtin' };
  let state = runtimeTranslator.initialState(ctx);
  const events: { key: string; draft: CanonicalEventDraft; namespace?: string[] }[] = [];
  const audit: AuditableCall[] = [];
  const artifacts: ArtifactContent[] = [];
  frames.forEach((frame, i) => {
    const step = runtimeTranslator.translate(
      {
        runId: 'run_test',
        nativeSeq: i + 1,
        receivedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
        frame,
      },
      state,
      ctx,
    );
    state = step.state;
    events.push(...step.events);
    audit.push(...(step.audit ?? []));
    artifacts.push(...(step.artifacts ?? []));
  });
  const end = runtimeTranslator.finish(state, ctx);
  events.push(...end.events);
  return { events, audit, artifacts };
}

/** A turn's IO that records frames with `emit`, allows every approval and declines every question. */
export function allowingIO(emit: (f: JsonValue) => void): TurnIO {
  return {
    emit,
    signal: new AbortController().signal,
    awaitApproval: async () => ({ outcome: 'selected', optionId: 'allow' }),
    awaitQuestion: async () => ({ outcome: 'declined' }),
  };
}
