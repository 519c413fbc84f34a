import type { AuditableCall, DeliveryRow } from '@agentlane/contract';
import type { RunRecord } from '@agentlane/store';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import { tracingConfig } from '../src';
import { traceRun } from '../src/observability/run-trace';

const run: RunRecord = {
  runId: 'run-1',
  threadId: 'thread-1',
  parentRunId: null,
  status: 'completed',
  prompt: 'SECRET PROMPT',
  options: {},
  createdAt: '2026-01-01T00:00:00.000Z',
  startedAt: '2026-01-01T00:00:01.000Z',
  endedAt: '2026-01-01T00:00:09.000Z',
  error: null,
  outcome: 'completed',
  ownerId: 'o',
  canonicalizedAt: '2026-01-01T00:00:10.000Z',
  leaseUntil: null,
  statusVersion: 3,
  cancelRequestedAt: null,
};

let seq = 0;
const row = (ts: string, kind: string, payload: object): DeliveryRow => {
  seq += 1;
  const event = {
    schemaVersion: 1,
    eventId: `e${seq}`,
    seq,
    runId: run.runId,
    threadId: run.threadId,
    turnId: 'turn-1',
    ts,
    identity: { provider: 'test-engine' },
    kind,
    payload,
  };
  return {
    threadId: run.threadId,
    deliverySeq: seq,
    eventId: event.eventId,
    revision: 1,
    runId: run.runId,
    seq,
    kind,
    schemaVersion: 1,
    provisional: false,
    event,
  } as DeliveryRow;
};

const events = [
  row('2026-01-01T00:00:03.000Z', 'tool.started', {
    toolCallId: 't1',
    name: 'run_shell',
    kind: 'execute',
    input: { command: 'SECRET INPUT' },
    status: 'running',
  }),
  row('2026-01-01T00:00:04.000Z', 'tool.completed', {
    toolCallId: 't1',
    status: 'failed',
    error: 'exit 2',
    output: 'SECRET OUTPUT',
  }),
  row('2026-01-01T00:00:05.000Z', 'tool.started', {
    toolCallId: 't2',
    name: 'read_file',
    kind: 'read',
    input: {},
    status: 'running',
  }),
];

const audit: AuditableCall[] = [
  {
    record_id: '01J00000000000000000000000',
    audit_record_version: 1,
    session_id: run.threadId,
    turn_id: 'turn-1',
    stage_id: 'model',
    seq_within_turn: 1,
    created_at: '2026-01-01T00:00:03.000Z',
    actor_kind: 'engine',
    session_auth_method: 'api_key',
    call_class: 'model',
    provider: 'test-provider',
    model: 'm-1',
    transport: 'http',
    status: 'ok',
    latency_ms: 1500,
    finish_reason: 'tool_calls',
    http_status: 200,
    payload: {
      kind: 'model_call',
      request: { messageCount: 1, toolNames: [], promptPreview: 'SECRET PROMPT' },
      response: { textPreview: 'SECRET ANSWER', toolCalls: [] },
      usage: { inputTokens: 10, outputTokens: 3 },
    },
  },
];

async function spans(captureContent: boolean) {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  traceRun(provider.getTracer('t'), { run, engine: 'eng', events, audit, captureContent });
  await provider.forceFlush();
  return exporter.getFinishedSpans();
}

describe('traceRun', () => {
  it('one invoke_agent span with chat and execute_tool children at the recorded times', async () => {
    const all = await spans(false);
    const root = all.find((s) => s.name === 'invoke_agent eng');
    expect(root?.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'eng',
      'gen_ai.provider.name': 'test-engine',
      'gen_ai.conversation.id': 'thread-1',
    });
    const rootId = root?.spanContext().spanId;
    const children = all.filter((s) => s !== root);
    expect(children.map((s) => s.name).sort()).toEqual([
      'chat m-1',
      'execute_tool read_file',
      'execute_tool run_shell',
    ]);
    expect(children.every((s) => s.parentSpanContext?.spanId === rootId)).toBe(true);
    const chat = children.find((s) => s.name === 'chat m-1');
    expect(chat?.attributes).toMatchObject({
      'gen_ai.request.model': 'm-1',
      'gen_ai.provider.name': 'test-provider',
      'gen_ai.usage.input_tokens': 10,
      'gen_ai.usage.output_tokens': 3,
      'gen_ai.response.finish_reasons': ['tool_calls'],
    });
    // Ends when the ledger row was written, started latency_ms before.
    expect(chat?.startTime).toEqual([Date.parse('2026-01-01T00:00:01Z') / 1000, 500_000_000]);
    const failed = children.find((s) => s.name === 'execute_tool run_shell');
    expect(failed?.status.code).toBe(2);
    expect(failed?.attributes['error.type']).toBe('failed');
    // Never completed: ends with the run.
    const open = children.find((s) => s.name === 'execute_tool read_file');
    expect(open?.endTime).toEqual(root?.endTime);
    expect(JSON.stringify(all.map((s) => s.attributes))).not.toContain('SECRET');
  });

  it('puts prompts, outputs and tool data in spans only with content capture on', async () => {
    const text = JSON.stringify((await spans(true)).map((s) => s.attributes));
    for (const secret of ['SECRET PROMPT', 'SECRET ANSWER', 'SECRET INPUT', 'SECRET OUTPUT'])
      expect(text).toContain(secret);
  });
});

describe('tracingConfig', () => {
  it('is on only with an OTLP endpoint, and off when disabled', () => {
    expect(tracingConfig({})).toBeUndefined();
    expect(tracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/' })).toEqual({
      url: 'http://c:4318/v1/traces',
      captureContent: false,
    });
    // The path goes before the query (a probe's `?token=` endpoint got `/v1/traces` after it).
    expect(tracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/otel/?token=t0k' })?.url).toBe(
      'http://c:4318/otel/v1/traces?token=t0k',
    );
    expect(
      tracingConfig({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://t:1/x',
        OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true',
      }),
    ).toEqual({ url: 'http://t:1/x', captureContent: true });
    expect(
      tracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c', OTEL_SDK_DISABLED: 'true' }),
    ).toBeUndefined();
    expect(
      tracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c', OTEL_TRACES_EXPORTER: 'none' }),
    ).toBeUndefined();
  });
});
