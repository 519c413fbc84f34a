export {
  createObservability,
  type Observability,
  type ObservabilityOptions,
  type RunLeaseObserver,
} from './observability';
export { type TracingConfig, tracingConfig } from './tracing';
