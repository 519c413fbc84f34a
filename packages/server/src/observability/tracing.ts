import type { Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';

/** Where and how traces go, read from the standard OpenTelemetry variables. */
export interface TracingConfig {
  /** The OTLP/HTTP traces URL (…/v1/traces). */
  url: string;
  /** OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true: prompts, outputs, tool input/output in spans. */
  captureContent: boolean;
}

/**
 * Tracing is on when an OTLP endpoint is configured (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, used as is, or
 * OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces) and not switched off (OTEL_SDK_DISABLED=true or
 * OTEL_TRACES_EXPORTER=none); otherwise undefined and nothing is loaded or sent.
 */
export function tracingConfig(env: NodeJS.ProcessEnv): TracingConfig | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  if (env.OTEL_TRACES_EXPORTER?.split(',').some((e) => e.trim() === 'none')) return undefined;
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  const url = traces || (base ? `${base.replace(/\/+$/, '')}/v1/traces` : undefined);
  if (!url) return undefined;
  const capture = env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT?.trim().toLowerCase();
  return { url, captureContent: capture === 'true' || capture === '1' };
}

/**
 * A tracer provider of agentlane's own (never registered globally, so an embedding app's OpenTelemetry
 * setup is left alone) exporting OTLP/HTTP JSON in batches. The exporter reads OTEL_EXPORTER_OTLP_HEADERS
 * and the timeout variables itself; the resource honours OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES.
 */
export function startTracing(
  config: TracingConfig,
  version: string,
): { tracer: Tracer; close(): Promise<void> } {
  const resource = resourceFromAttributes({ 'service.name': 'agentlane', 'service.version': version }).merge(
    detectResources({ detectors: [envDetector] }),
  );
  const provider = new TracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: config.url }) })],
  });
  return {
    tracer: provider.getTracer('agentlane', version),
    close: () => provider.shutdown(),
  };
}
