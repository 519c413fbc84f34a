import { RunTraces } from './run-traces.js';
import { startTracing } from './tracing.js';
import type { TracingConfig } from './tracing-config.js';

/**
 * The OpenTelemetry side of observability, loaded only when tracing is configured: the SDK, the OTLP
 * exporter and the span code are some two hundred modules that a server without an OTLP endpoint never needs.
 */
export function startRunTraces(
  config: TracingConfig,
  version: string,
  log: (message: string) => void,
): { traces: RunTraces; close(): Promise<void> } {
  const tracing = startTracing(config, version);
  return { traces: new RunTraces(tracing.tracer, config.captureContent, log), close: () => tracing.close() };
}
