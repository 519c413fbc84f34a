import type { Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import type { TracingConfig } from './tracing-config.js';

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
    close: () => closeWithin(provider.shutdown(), CLOSE_FLUSH_MS),
  };
}

/**
 * How long shutdown waits for the last spans to reach the collector. A collector that hangs kept SIGTERM
 * waiting for the whole grace period (and then reported that runs outlived it, when none ran).
 */
const CLOSE_FLUSH_MS = 2_000;

async function closeWithin(shutdown: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
    timer.unref();
  });
  try {
    await Promise.race([shutdown.catch(() => undefined), late]);
  } finally {
    clearTimeout(timer);
  }
}
