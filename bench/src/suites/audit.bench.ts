import { fileURLToPath } from 'node:url';
import { acpTranslator } from '@agentlane/adapter-acp';
import type { JsonValue } from '@agentlane/contract';
import {
  auditEngineEvents,
  initialEngineAuditState,
  type NativeFrameRecord,
  type TranslatedEvent,
} from '@agentlane/engine-kit';
import { readJsonl } from '../translators/throughput';
import type { BenchResult } from '../types';

const CTX = { threadId: 't', runId: 'r', turnId: 'r', provider: 'acp' };
const CHUNKS = 20_000;
const ROUNDS = 5;
/** The tracker alone takes a few ms a round: more rounds for a steadier best on a shared machine. */
const TRACKER_ROUNDS = 20;

/**
 * What auditing an external engine costs: the recorded Claude Code ACP turn (a tool call with an approval,
 * usage) with CHUNKS extra message chunks before its end. The ACP translator returns audit rows in every
 * step (engine-kit's tracker reads them off the step's events); the tracker alone is timed over the same
 * steps, so its share of the translation is visible.
 */
export async function run(): Promise<BenchResult[]> {
  const trace = readJsonl(
    fileURLToPath(
      new URL(
        '../../../packages/adapters/acp/test/__fixtures__/claude-agent-acp.wire.jsonl',
        import.meta.url,
      ),
    ),
  );
  const chunk = trace.find((f) => JSON.stringify(f).includes('agent_message_chunk'));
  const end = trace.findIndex((f) => JSON.stringify(f).includes('"stopReason"'));
  if (!chunk || end < 0) throw new Error('the recorded trace changed shape');
  const frames: JsonValue[] = [...trace.slice(0, end), ...Array(CHUNKS).fill(chunk), ...trace.slice(end)];
  const records: NativeFrameRecord[] = frames.map((frame, i) => ({
    runId: CTX.runId,
    nativeSeq: i + 1,
    receivedAt: new Date(Date.UTC(2026, 0, 1) + i).toISOString(),
    frame,
  }));

  let translateMs = Number.POSITIVE_INFINITY;
  let steps: TranslatedEvent[][] = [];
  let rows = 0;
  for (let r = 0; r < ROUNDS; r++) {
    let state = acpTranslator.initialState(CTX);
    const seen: TranslatedEvent[][] = [];
    let produced = 0;
    const started = performance.now();
    for (const record of records) {
      const step = acpTranslator.translate(record, state, CTX);
      state = step.state;
      seen.push(step.events);
      produced += step.audit?.length ?? 0;
    }
    translateMs = Math.min(translateMs, performance.now() - started);
    steps = seen;
    rows = produced;
  }
  if (rows !== 2) throw new Error(`expected the tool row and the model row, got ${rows} rows`);

  let trackerMs = Number.POSITIVE_INFINITY;
  for (let r = 0; r < TRACKER_ROUNDS; r++) {
    let state = initialEngineAuditState();
    const started = performance.now();
    steps.forEach((events, i) => {
      state = auditEngineEvents(state, events, records[i]?.receivedAt ?? null, CTX, {
        provider: 'acp',
        transport: 'acp',
      }).state;
    });
    trackerMs = Math.min(trackerMs, performance.now() - started);
  }
  const perFrameUs = (ms: number) => (ms * 1000) / records.length;
  return [
    {
      name: `audit: ACP translator with audit rows, ${CHUNKS} message chunks`,
      unit: 'frames/s',
      value: Math.round(records.length / (translateMs / 1000)),
      extra: `${records.length} frames in ${translateMs.toFixed(1)} ms (${perFrameUs(translateMs).toFixed(2)} us/frame), 2 rows`,
    },
    {
      name: 'audit: engine-kit audit tracker alone, per frame',
      unit: 'us/frame',
      value: Number(perFrameUs(trackerMs).toFixed(3)),
      extra: `${((trackerMs / translateMs) * 100).toFixed(1)}% of the translation time above (best of ${ROUNDS} / ${TRACKER_ROUNDS})`,
    },
  ];
}
