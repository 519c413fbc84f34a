import type { AuditableCall, StreamEvent } from '@agentlane/contract';
import type { SecretRedactor, Translator } from '@agentlane/engine-kit';
import { RunTranslation } from '../../src';
import { Materializer, PublishHub, RunPipeline } from '../../src/internal';
import type { TestStore } from './stores';

export interface TestPipelineOptions {
  /** What the run's frames are translated by. */
  translator: Translator<never>;
  /** The pipeline's redactor (stored frames, rows, audit rows). */
  redactor?: SecretRedactor;
  /** Give the translation the redactor too (as the lane does), not only the pipeline. */
  translationRedacts?: boolean;
  /** The engine's opt-in to shared large strings. */
  shareLargeStrings?: boolean;
}

/**
 * A run of a new thread `th` on `t`'s store and the live pass over it (RunPipeline), with a hub whose
 * subscriber from 0 collects what is delivered (`seen`), an audit sink (`audited`) and a log (`logs`).
 */
export async function openTestPipeline(t: TestStore, o: TestPipelineOptions) {
  const { store } = t;
  await store.createThread({ threadId: 'th', engine: 'test', title: null, workDir: null, metadata: {} });
  const { run } = await store.createRun({ threadId: 'th', prompt: 'p' });
  const hub = new PublishHub(store, { headPollMs: 0 });
  const seen: StreamEvent[] = [];
  await hub.subscribe('th', 0, (e) => seen.push(e));
  const audited: AuditableCall[] = [];
  const logs: string[] = [];
  const ctx = { threadId: 'th', runId: run.runId, turnId: run.runId, provider: 'test' };
  const pipeline = new RunPipeline({
    store,
    hub,
    threadId: 'th',
    runId: run.runId,
    translation: new RunTranslation(
      o.translator,
      ctx,
      o.translationRedacts && o.redactor ? { redactor: o.redactor } : {},
    ),
    materializer: new Materializer(store),
    audit: { record: async (rows) => void audited.push(...rows) },
    log: (_level, message, detail) => logs.push(`${message} ${JSON.stringify(detail ?? null)}`),
    ...(o.redactor ? { redactor: o.redactor } : {}),
    ...(o.shareLargeStrings ? { shareLargeStrings: true } : {}),
  });
  return { pipeline, hub, seen, audited, logs, runId: run.runId, ctx };
}
