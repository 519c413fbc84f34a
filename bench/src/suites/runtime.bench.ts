import { mkdtempSync, rmSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDriver, runtimeTranslator } from '@agentlane/adapter-builtin';
import type { JsonValue } from '@agentlane/contract';
import type { TurnIO } from '@agentlane/engine-kit';
import { startFakeModelServer } from '@agentlane/fake-model-server';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { jsonSchema, stepCountIs, streamText, tool } from 'ai';
import type { BenchResult } from '../types';

// The built-in engine's added cost, next to calling the AI SDK directly against the same fake Chat
// Completions server in the same run: per streamed chunk (mean from totals, and the p99 of the harness's own
// per-chunk work: JSON-safe part + emit + pure translation) and per tool call; then turns per second of a
// scripted 3-tool turn (driver + translator, without the store: the lane suite measures the store).

const CHUNKS_TEXT = 'lorem ipsum dolor sit amet '.repeat(400);
const CHUNK_SIZE = 8;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

function translatingIO(costs: number[] | null): { io: TurnIO; frames: JsonValue[] } {
  const ctx = { threadId: 't', runId: 'r', turnId: 'r', provider: 'builtin' };
  let state = runtimeTranslator.initialState(ctx);
  let seq = 0;
  const frames: JsonValue[] = [];
  const io: TurnIO = {
    emit(frame) {
      const t0 = performance.now();
      frames.push(frame);
      seq += 1;
      state = runtimeTranslator.translate(
        { runId: 'r', nativeSeq: seq, receivedAt: '2026-01-01T00:00:00.000Z', frame },
        state,
        ctx,
      ).state;
      costs?.push(performance.now() - t0);
    },
    signal: new AbortController().signal,
    awaitApproval: async () => ({ outcome: 'selected', optionId: 'allow' }),
    awaitQuestion: async () => ({ outcome: 'declined' }),
  };
  return { io, frames };
}

export async function run(): Promise<BenchResult[]> {
  const fake = await startFakeModelServer({ script: [{ text: CHUNKS_TEXT, chunkSize: CHUNK_SIZE }] });
  const work = mkdtempSync(join(tmpdir(), 'rt-bench-'));
  const baseURL = `${fake.url}/v1`;
  const results: BenchResult[] = [];
  try {
    const chunks = Math.ceil(CHUNKS_TEXT.length / CHUNK_SIZE);
    const direct = async () => {
      const model = createOpenAICompatible({ name: 'bench', baseURL, apiKey: 'k', includeUsage: true })(
        'fake-model',
      );
      const t0 = performance.now();
      const r = streamText({ model, prompt: 'go', maxRetries: 0 });
      for await (const _ of r.fullStream);
      return performance.now() - t0;
    };
    const driver = createDriver({
      api: 'openai-chat',
      model: 'fake-model',
      baseURL,
      apiKey: 'k',
      plan: false,
      workspaceTools: false,
    });
    const harness = async (costs: number[] | null) => {
      const session = await driver.openSession({
        threadId: 't',
        workDir: work,
        generation: 1,
        emit: () => {},
      });
      const { io } = translatingIO(costs);
      const t0 = performance.now();
      await session.runTurn({ threadId: 't', runId: 'r', turnId: 'r', prompt: 'go' }, io);
      return performance.now() - t0;
    };
    for (let i = 0; i < 3; i++) {
      await direct();
      await harness(null);
    }
    const directTimes: number[] = [];
    const harnessTimes: number[] = [];
    const costs: number[] = [];
    for (let i = 0; i < 10; i++) {
      directTimes.push(await direct());
      harnessTimes.push(await harness(costs));
    }
    const med = (v: number[]) => percentile(v, 50);
    const addedMean = (med(harnessTimes) - med(directTimes)) / chunks;
    results.push(
      {
        name: 'runtime: AI SDK direct, per chunk (median turn / chunks)',
        unit: 'ms',
        value: med(directTimes) / chunks,
      },
      {
        name: 'runtime: harness, per chunk (median turn / chunks)',
        unit: 'ms',
        value: med(harnessTimes) / chunks,
        // Baseline time ÷ ours: 1 when the harness adds nothing.
        ratio: med(directTimes) / med(harnessTimes),
        extra: `baseline: streamText directly, ${(med(directTimes) / chunks).toFixed(4)} ms/chunk`,
      },
      {
        name: 'runtime: added per streamed chunk (median harness − direct, / chunks)',
        unit: 'ms',
        value: addedMean,
        extra: `${chunks} chunks of ${CHUNK_SIZE} chars, fake Chat Completions server`,
      },
      {
        name: 'runtime: harness work per chunk p99 (part→frame→translate)',
        unit: 'ms',
        value: percentile(costs, 99),
        extra: 'target ≤ 1 ms',
      },
    );

    // Per tool call and turns per second: a scripted turn with 3 tool calls (read-only, no approval).
    fake.setScenario((req) =>
      req.toolResultsSinceUserPrompt < 3
        ? { toolCalls: [{ name: 'list_files', arguments: {}, id: `c${req.index}` }] }
        : { text: 'done' },
    );
    const toolDriver = createDriver({
      api: 'openai-chat',
      model: 'fake-model',
      baseURL,
      apiKey: 'k',
      plan: false,
    });
    // The baseline: the AI SDK's own tool loop running the same three calls of a tool that lists the folder.
    const directTools = {
      list_files: tool({
        description: 'List the files of the workspace folder',
        inputSchema: jsonSchema<Record<string, never>>({ type: 'object', properties: {} }),
        execute: async () => (await readdir(work)).join('\n'),
      }),
    };
    const directTurn = async () => {
      const model = createOpenAICompatible({ name: 'bench', baseURL, apiKey: 'k', includeUsage: true })(
        'fake-model',
      );
      const t1 = performance.now();
      const r = streamText({
        model,
        prompt: 'go',
        tools: directTools,
        stopWhen: stepCountIs(10),
        maxRetries: 0,
      });
      for await (const _ of r.fullStream);
      return performance.now() - t1;
    };
    const harnessTurn = async (i: number) => {
      const session = await toolDriver.openSession({
        threadId: `t${i}`,
        workDir: work,
        generation: 1,
        emit: () => {},
      });
      const { io } = translatingIO(null);
      const t1 = performance.now();
      await session.runTurn({ threadId: `t${i}`, runId: `r${i}`, turnId: `r${i}`, prompt: 'go' }, io);
      return performance.now() - t1;
    };
    for (let i = 0; i < 3; i++) {
      await directTurn();
      await harnessTurn(-1 - i);
    }
    const turns = 30;
    const directTurnTimes: number[] = [];
    const harnessTurnTimes: number[] = [];
    for (let i = 0; i < turns; i++) {
      directTurnTimes.push(await directTurn());
      harnessTurnTimes.push(await harnessTurn(i));
    }
    const sum = (v: number[]) => v.reduce((a, b) => a + b, 0);
    const perSecond = (v: number[]) => (turns * 1000) / sum(v);
    results.push(
      {
        name: 'runtime: added per tool call (median harness turn − direct turn, / 3)',
        unit: 'ms',
        value: (med(harnessTurnTimes) - med(directTurnTimes)) / 3,
        extra: `median 3-tool turn: harness ${med(harnessTurnTimes).toFixed(1)} ms, AI SDK tool loop ${med(directTurnTimes).toFixed(1)} ms; the harness also validates input, checks approval, emits and translates native frames and builds the ledger rows (no checkpoint saver here)`,
      },
      {
        name: 'runtime: scripted 3-tool turns per second',
        unit: 'turns/s',
        value: perSecond(harnessTurnTimes),
        ratio: perSecond(harnessTurnTimes) / perSecond(directTurnTimes),
        extra: `4 model calls + 3 tool calls per turn; baseline: the AI SDK's own tool loop, ${perSecond(directTurnTimes).toFixed(1)} turns/s`,
      },
    );
  } finally {
    await fake.close();
    rmSync(work, { recursive: true, force: true });
  }
  return results;
}
