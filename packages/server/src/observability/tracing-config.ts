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
  const url = traces || (base ? tracesUrl(base) : undefined);
  if (!url) return undefined;
  const capture = env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT?.trim().toLowerCase();
  return { url, captureContent: capture === 'true' || capture === '1' };
}

/** `<endpoint>/v1/traces`, the path added before any query (it was appended after `?token=…`). */
function tracesUrl(base: string): string {
  try {
    const u = new URL(base);
    u.pathname = `${u.pathname.replace(/\/+$/, '')}/v1/traces`;
    return u.toString();
  } catch {
    return `${base.replace(/\/+$/, '')}/v1/traces`;
  }
}
