// Internals of the ACP adapter for tests and benchmarks; not a stable surface.
export { substitute } from './driver/config.js';
export { recordedNdJsonStream, type WireDirection } from './driver/ndjson.js';
export { waitForQuiet } from './driver/quiet.js';
export { approvalIdFor } from './translate/approvals.js';
export {
  type AcpNegotiationInput,
  negotiateAcpCapabilities,
  responseHasModes,
} from './translate/capabilities.js';
