export {
  createObservability,
  type Observability,
  type ObservabilityOptions,
  type RunLeaseObserver,
} from './observability.js';
export { type TracingConfig, tracingConfig } from './tracing-config.js';
