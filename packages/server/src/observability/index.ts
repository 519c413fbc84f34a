export { createObservability, type Observability, type RunLeaseObserver } from './observability';
