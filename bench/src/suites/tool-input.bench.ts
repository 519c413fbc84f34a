/**
 * Streamed tool input (issue 20): the built-in engine writes a 100 KB file with write_file, its input
 * streamed by the fake Chat Completions server in 10-byte argument pieces. The turn runs in process (driver,
 * the built-in translator, the lane's envelope builder); what is counted is the tool call's events as the store
 * keeps them (the `event` JSON of each row) and as SSE sends them (one frame per row), in the append form
 * (`tool.progress.inputDelta`) next to the cumulative form the same stream had before (every piece's
 * tool.progress carrying the whole input so far), built from the same frames in the same run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDriver, runtimeTranslator } from '@agentlane/adapter-builtin';
import type { CanonicalEvent, JsonValue } from '@agentlane/contract';
import type { NativeFrameRecord } from '@agentlane/engine-kit';
import { startFakeModelServer } from '@agentlane/fake-model-server';
import { RunTranslation } from '@agentlane/lane';
import { formatSseFrame } from '@agentlane/server';
import { prose } from '../long-answer/workload';
import type { BenchResult } from '../types';

const INPUT_CONTENT_CHARS = 100_000;
const PIECE = 10;
const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;

/** Bytes stored (event JSON) and sent (SSE frame) for these events, as rows in delivery order. */
function bytesOf(events: CanonicalEvent[]): { stored: number; sent: number } {
  let stored = 0;
  let sent = 0;
  events.forEach((event, i) => {
    stored += Buffer.byteLength(JSON.stringify(event));
    // The frame the server sends for a stored row (rowToStreamEvent's shape).
    const frame = { type: event.kind, deliverySeq: i + 1, revision: 1, provisional: true, event };
    sent += Buffer.byteLength(formatSseFrame({ id: i + 1, data: JSON.stringify(frame) }));
  });
  return { stored, sent };
}

/** The call's events in the cumulative form: each inputDelta frame carries the whole input text so far. */
function cumulative(events: CanonicalEvent[]): CanonicalEvent[] {
  let text = '';
  return events.map((e) => {
    if (e.kind !== 'tool.progress' || e.payload.inputDelta === undefined) return e;
    text += e.payload.inputDelta;
    const { inputDelta: _, ...rest } = e.payload;
    return { ...e, payload: { ...rest, input: text } } as CanonicalEvent;
  });
}

async function turnEvents(baseURL: string, work: string, coalesce: boolean): Promise<CanonicalEvent[]> {
  const driver = createDriver({
    api: 'openai-chat',
    model: 'fake-model',
    baseURL,
    apiKey: 'k',
    plan: false,
    coalesceDeltas: coalesce,
  });
  const session = await driver.openSession({ threadId: 't', workDir: work, generation: 1, emit: () => {} });
  const ctx = { threadId: 't', runId: 'r', turnId: 'r', provider: runtimeTranslator.provider };
  const translation = new RunTranslation(runtimeTranslator, ctx);
  const events: CanonicalEvent[] = [];
  let seq = 0;
  await session.runTurn(
    { threadId: 't', runId: 'r', turnId: 'r', prompt: 'write the file' },
    {
      emit(frame: JsonValue) {
        const record: NativeFrameRecord = {
          runId: 'r',
          nativeSeq: ++seq,
          receivedAt: new Date().toISOString(),
          frame,
        };
        for (const built of translation.push(record).events) events.push(built.event);
      },
      signal: new AbortController().signal,
      awaitApproval: async () => ({ outcome: 'selected', optionId: 'allow' }),
      awaitQuestion: async () => ({ outcome: 'declined' }),
    },
  );
  await driver.dispose?.();
  return events;
}

export async function run(): Promise<BenchResult[]> {
  const work = mkdtempSync(join(tmpdir(), 'tool-input-bench-'));
  const content = prose(INPUT_CONTENT_CHARS);
  const args = { path: 'big.txt', content };
  const inputBytes = Buffer.byteLength(JSON.stringify(args));
  const fake = await startFakeModelServer({
    scenario: (req) =>
      req.toolResultsSinceUserPrompt === 0
        ? { toolCalls: [{ name: 'write_file', arguments: args, id: 'call_big', argumentsChunkSize: PIECE }] }
        : { text: 'written' },
  });
  try {
    const pieces = Math.ceil(inputBytes / PIECE);
    const call = (events: CanonicalEvent[]) =>
      events.filter(
        (e) =>
          (e.kind === 'tool.started' || e.kind === 'tool.progress') && e.payload.toolCallId === 'call_big',
      );
    const streamed = (events: CanonicalEvent[]) =>
      events.filter((e) => e.kind === 'tool.progress' && e.payload.inputDelta !== undefined);
    const joined = call(await turnEvents(`${fake.url}/v1`, work, true));
    const each = call(await turnEvents(`${fake.url}/v1`, work, false));
    // The baseline: the stream as it was stored and sent before, one event per piece, each with the whole
    // input so far (the same frames, in the same run).
    const before = bytesOf(cumulative(streamed(each)));
    const ours = bytesOf(streamed(joined));
    const whole = bytesOf(joined);
    const perPiece = bytesOf(streamed(each));
    const kb = `${round(inputBytes / 1000, 1)} KB input (write_file) in ${pieces} pieces of ${PIECE} bytes`;
    const x = (b: number) => `${round(b / inputBytes, 2)}×`;
    return [
      {
        name: 'tool input: streamed pieces, bytes stored ÷ input (append form)',
        unit: '×',
        value: round(ours.stored / inputBytes, 3),
        ratio: round(before.stored / ours.stored, 1),
        extra: `${kb}; ${streamed(joined).length} inputDelta events (pieces read in one turn of the loop joined); cumulative form before: ${pieces} events, ${x(before.stored)} (${round(before.stored / 1e6, 1)} MB); target ≤ 2×`,
      },
      {
        name: 'tool input: streamed pieces, bytes sent (SSE) ÷ input (append form)',
        unit: '×',
        value: round(ours.sent / inputBytes, 3),
        ratio: round(before.sent / ours.sent, 1),
        extra: `cumulative form before: ${x(before.sent)} (${round(before.sent / 1e6, 1)} MB); target ≤ 2×`,
      },
      {
        name: 'tool input: the whole call (started, pieces, the one whole input), stored ÷ input',
        unit: '×',
        value: round(whole.stored / inputBytes, 3),
        extra: `sent ${x(whole.sent)}; the parsed input once (for readers that do not know inputDelta) is 1× of it`,
      },
      {
        name: 'tool input: streamed pieces one event each (no joining), stored ÷ input',
        unit: '×',
        value: round(perPiece.stored / inputBytes, 2),
        ratio: round(before.stored / perPiece.stored, 1),
        extra: `a stream that delivers one 10-byte piece per read: the envelope of ${pieces} events dominates; sent ${x(perPiece.sent)}`,
      },
    ];
  } finally {
    await fake.close();
    rmSync(work, { recursive: true, force: true });
  }
}
