import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createDriver, runtimeTranslator } from '@agentlane/adapter-builtin';
import { createSqliteSaver, fingerprintCheckpoint, sessionStateOf } from '@agentlane/checkpoints';
import type { AuditableCall, Checkpoint, JsonValue } from '@agentlane/contract';
import type { TurnIO, TurnOutcome } from '@agentlane/engine-kit';
import { createSqliteLedger } from '@agentlane/ledger';
import { createModel } from '@agentlane/runtime';
import {
  CORPUS_API_KEY,
  type CorpusEvent,
  type CorpusFixture,
  type CorpusInput,
  withoutWorkspace,
} from './corpus.js';
import { fixedClock, sequentialIds } from './deterministic.js';

export type TurnRecord = Omit<
  CorpusFixture,
  'corpusVersion' | 'name' | 'input' | 'exchanges' | 'nonDeterministic'
>;

/**
 * Runs one corpus turn the way the lane would (turn.started, session open, the turn, turn.ended), with the
 * injected clock and ids, against a model server at `origin` (e.g. http://127.0.0.1:4000). The frames go through the pure translator
 * with deterministic receive times; the audit rows go into a real SQLite ledger and the checkpoints into a
 * real SQLite saver, and both are read back from there. Paths of the throwaway workspace are replaced by
 * the workspace placeholder. `frames`, when given, receives the native source lane (harness frames included).
 */
export async function runCorpusTurn(
  input: CorpusInput,
  origin: string,
  frames: JsonValue[] = [],
): Promise<TurnRecord> {
  const root = await mkdtemp(join(tmpdir(), 'agentlane-corpus-'));
  const workspace = join(root, 'workspace');
  await mkdir(workspace);
  for (const [path, content] of Object.entries(input.files)) {
    await mkdir(dirname(join(workspace, path)), { recursive: true });
    await writeFile(join(workspace, path), content);
  }
  const db = join(root, 'corpus.db');
  const providerIds = sequentialIds(input.providerIds);
  const saver = createSqliteSaver({ database: db });
  const ledger = createSqliteLedger({ database: db });
  const driver = createDriver({
    api: input.engine.api,
    model: input.engine.model,
    baseURL: `${origin}${input.engine.basePath}`,
    apiKey: CORPUS_API_KEY,
    plan: input.engine.plan,
    maxSteps: input.engine.maxSteps,
    ...(input.engine.subagents ? { subagents: true } : {}),
    ...(input.engine.prices ? { prices: input.engine.prices } : {}),
    ...(input.engine.turnTokenBudget !== undefined ? { turnTokenBudget: input.engine.turnTokenBudget } : {}),
    ...(input.engine.turnCostBudget !== undefined ? { turnCostBudget: input.engine.turnCostBudget } : {}),
    checkpoints: saver,
    // The corpus compares events chunk by chunk; coalescing follows socket reads, which a replay does not fix.
    coalesceDeltas: false,
    clock: fixedClock(input.clock),
    ids: sequentialIds(input.ids),
    modelFactory: (settings, observe) => createModel(settings, observe, providerIds),
  });
  try {
    const emit = (f: JsonValue) => {
      frames.push(f);
    };
    emit({ harness: 'turn.started', prompt: input.prompt });
    const session = await driver.openSession({
      threadId: input.threadId,
      workDir: workspace,
      generation: 1,
      emit,
    });
    const answers = [...input.approvals];
    const questionAnswers = [...(input.questions ?? [])];
    const io: TurnIO = {
      emit,
      signal: new AbortController().signal,
      awaitApproval: async (approvalId) => {
        const answer = answers.shift() ?? { outcome: 'selected', optionId: 'allow' };
        emit({ harness: 'approval.answered', approvalId, ...answer } as JsonValue);
        return answer;
      },
      awaitQuestion: async (questionId) => {
        // A question the input has no answer for is cancelled rather than hanging the recording.
        const answer = questionAnswers.shift() ?? { outcome: 'cancelled' };
        emit({ harness: 'question.answered', questionId, ...answer } as JsonValue);
        return answer;
      },
    };
    const outcome: TurnOutcome = await session.runTurn(
      { threadId: input.threadId, runId: input.turnId, turnId: input.turnId, prompt: input.prompt },
      io,
    );
    emit({
      harness: 'turn.ended',
      outcome: outcome.outcome,
      ...(outcome.error ? { error: outcome.error } : {}),
    });
    await session.close();

    const { events, audit } = translate(input, frames);
    await ledger.record(audit);
    // The thread's session, then the sub-agents' child sessions, in the order their rows appeared.
    const sessions = [...new Set([input.threadId, ...audit.map((r) => r.session_id)])];
    const { ledgerRows, checkpoints } = await readBack(ledger, saver, sessions);
    const latest = checkpoints.filter((cp) => cp.sessionId === input.threadId).at(-1);
    const sessionState = latest
      ? sessionStateOf(latest)
      : { conversation: [], plan: [], versionVector: {}, channels: {} };
    const fingerprint = latest ? fingerprintCheckpoint(latest) : '';
    return withoutWorkspace(
      { outcome, ledgerRows, checkpoints, events, sessionState, fingerprint },
      workspace,
    );
  } finally {
    await driver.dispose();
    await saver.close();
    await ledger.close();
    await rm(root, { recursive: true, force: true });
  }
}

/** The ledger rows and checkpoints of each session, as stored (oldest checkpoint first). */
async function readBack(
  ledger: ReturnType<typeof createSqliteLedger>,
  saver: ReturnType<typeof createSqliteSaver>,
  sessions: string[],
): Promise<{ ledgerRows: AuditableCall[]; checkpoints: Checkpoint[] }> {
  const ledgerRows: AuditableCall[] = [];
  const checkpoints: Checkpoint[] = [];
  for (const sessionId of sessions) {
    for (let cursor: string | undefined; ; ) {
      const page = await ledger.list(sessionId, { limit: 1000, ...(cursor ? { cursor } : {}) });
      ledgerRows.push(...page.items);
      if (!page.nextCursor) break;
      cursor = page.nextCursor;
    }
    const listed = await saver.list({ sessionId, limit: 1000 });
    for (const summary of [...listed.items].reverse()) {
      const cp = await saver.get(sessionId, summary.checkpointId);
      if (cp) checkpoints.push(structuredClone(cp) as Checkpoint);
    }
  }
  return { ledgerRows, checkpoints };
}

/** The frames through the runtime's pure translator, as the lane would feed them. */
function translate(input: CorpusInput, frames: JsonValue[]) {
  const ctx = {
    threadId: input.threadId,
    runId: input.turnId,
    turnId: input.turnId,
    provider: runtimeTranslator.provider,
  };
  const receivedAt = fixedClock(input.frameClock);
  let state = runtimeTranslator.initialState(ctx);
  const events: CorpusEvent[] = [];
  const audit: AuditableCall[] = [];
  const take = (step: ReturnType<typeof runtimeTranslator.finish>) => {
    state = step.state;
    for (const e of step.events)
      events.push({
        key: e.key,
        kind: e.draft.kind,
        payload: e.draft.payload as unknown as JsonValue,
        ...(e.identity ? { identity: e.identity as unknown as JsonValue } : {}),
        ...(e.namespace ? { namespace: e.namespace } : {}),
      });
    audit.push(...(step.audit ?? []));
  };
  frames.forEach((frame, i) => {
    take(
      runtimeTranslator.translate(
        { runId: input.turnId, nativeSeq: i + 1, receivedAt: receivedAt(), frame },
        state,
        ctx,
      ),
    );
  });
  take(runtimeTranslator.finish(state, ctx));
  return { events, audit };
}
