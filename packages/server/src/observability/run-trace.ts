import type { AuditableCall, DeliveryRow, JsonValue } from '@agentlane/contract';
import type { RunRecord } from '@agentlane/store';
import {
  type Attributes,
  context,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';

/** Bound on any captured content attribute (only with content capture on). */
const MAX_CONTENT_CHARS = 4096;

export interface RunTraceInput {
  run: RunRecord;
  /** The thread's engine name (the agent). */
  engine: string;
  /** The run's canonical events, latest revision each, in delivery order. */
  events: readonly DeliveryRow[];
  /** The run's audit rows (model calls become `chat` spans). */
  audit: readonly AuditableCall[];
  captureContent: boolean;
}

const ms = (iso: string | null | undefined): number | undefined => {
  const t = iso ? Date.parse(iso) : Number.NaN;
  return Number.isFinite(t) ? t : undefined;
};

const bounded = (value: JsonValue | string | undefined): string | undefined => {
  if (value === undefined) return undefined;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > MAX_CONTENT_CHARS ? text.slice(0, MAX_CONTENT_CHARS) : text;
};

/** GenAI semconv message arrays (gen_ai.input.messages / gen_ai.output.messages) for one text part. */
const messages = (role: string, text: string | undefined) =>
  text === undefined ? undefined : JSON.stringify([{ role, parts: [{ type: 'text', content: text }] }]);

function setDefined(span: Span, attributes: Record<string, string | number | string[] | undefined>) {
  for (const [key, value] of Object.entries(attributes))
    if (value !== undefined) span.setAttribute(key, value);
}

function fail(span: Span, errorType: string, message?: string) {
  span.setAttribute('error.type', errorType);
  span.setStatus({ code: SpanStatusCode.ERROR, ...(message ? { message } : {}) });
}

/**
 * The spans of one settled run, following the OpenTelemetry GenAI semantic conventions, built after the
 * fact from what is stored (so every engine gets them, as far as its events and audit rows show): one
 * `invoke_agent` span for the run, a `chat` child per model call of the ledger, an `execute_tool` child per
 * tool call of the events, each with the times recorded (ledger latency, event receipt times). Prompt,
 * output and tool data appear only with content capture on.
 */
export function traceRun(tracer: Tracer, input: RunTraceInput): void {
  const { run, engine, events, audit, captureContent } = input;
  const runStart = ms(run.startedAt) ?? ms(run.createdAt) ?? Date.now();
  const runEnd = ms(run.endedAt) ?? Date.now();
  const provider = events[0]?.event.identity.provider;
  const common: Attributes = { 'gen_ai.conversation.id': run.threadId };

  const root = tracer.startSpan(
    `invoke_agent ${engine}`,
    {
      kind: SpanKind.INTERNAL,
      startTime: runStart,
      attributes: {
        ...common,
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': engine,
        ...(provider ? { 'gen_ai.provider.name': provider } : {}),
        'agentlane.run.id': run.runId,
        'agentlane.run.outcome': run.outcome ?? run.status,
      },
    },
    ROOT_CONTEXT,
  );
  if (captureContent) setDefined(root, { 'gen_ai.input.messages': messages('user', bounded(run.prompt)) });
  if (run.status === 'failed') fail(root, 'run_failed', run.error ?? undefined);
  const parent = trace.setSpan(context.active(), root);

  for (const row of audit) {
    if (row.call_class !== 'model' || row.payload.kind !== 'model_call') continue;
    const end = ms(row.created_at) ?? runEnd;
    const span = tracer.startSpan(
      `chat${row.model ? ` ${row.model}` : ''}`,
      {
        kind: SpanKind.CLIENT,
        startTime: end - row.latency_ms,
        attributes: { ...common, 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': row.provider },
      },
      parent,
    );
    const usage = row.payload.usage;
    setDefined(span, {
      'gen_ai.request.model': row.model ?? undefined,
      'gen_ai.usage.input_tokens': usage?.inputTokens,
      'gen_ai.usage.output_tokens': usage?.outputTokens,
      'gen_ai.usage.reasoning_tokens': usage?.reasoningTokens,
      'gen_ai.usage.cache_read.input_tokens': usage?.cachedInputTokens,
      'gen_ai.response.finish_reasons': row.finish_reason ? [row.finish_reason] : undefined,
      'http.response.status_code': row.http_status ?? undefined,
    });
    if (captureContent)
      setDefined(span, {
        'gen_ai.input.messages': messages('user', bounded(row.payload.request.promptPreview)),
        'gen_ai.output.messages': messages('assistant', bounded(row.payload.response.textPreview)),
      });
    if (row.status !== 'ok') fail(span, row.status === 'cancelled' ? 'cancelled' : 'model_call_failed');
    span.end(end);
  }

  // Tool calls: started → completed by toolCallId; one never completed ends with the run.
  const open = new Map<string, { span: Span; input: JsonValue }>();
  for (const row of events) {
    const e = row.event;
    if (e.kind === 'tool.started' && !open.has(e.payload.toolCallId)) {
      const span = tracer.startSpan(
        `execute_tool ${e.payload.name}`,
        {
          kind: SpanKind.INTERNAL,
          startTime: ms(e.ts) ?? runStart,
          attributes: {
            ...common,
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.name': e.payload.name,
            'gen_ai.tool.call.id': e.payload.toolCallId,
            'gen_ai.tool.type': 'function',
            'agentlane.tool.kind': e.payload.kind,
          },
        },
        parent,
      );
      open.set(e.payload.toolCallId, { span, input: e.payload.input });
    } else if (e.kind === 'tool.progress' && e.payload.input !== undefined) {
      const entry = open.get(e.payload.toolCallId);
      if (entry) entry.input = e.payload.input;
    } else if (e.kind === 'tool.completed') {
      const entry = open.get(e.payload.toolCallId);
      if (!entry) continue;
      open.delete(e.payload.toolCallId);
      if (captureContent)
        setDefined(entry.span, {
          'gen_ai.tool.call.arguments': bounded(entry.input),
          'gen_ai.tool.call.result': bounded(e.payload.output ?? e.payload.outputArtifact?.preview),
        });
      if (e.payload.status !== 'completed') fail(entry.span, e.payload.status, e.payload.error);
      entry.span.end(ms(e.ts) ?? runEnd);
    }
  }
  for (const { span } of open.values()) span.end(runEnd);
  root.end(runEnd);
}
