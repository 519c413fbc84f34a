// Internals of the ACP adapter for tests and benchmarks; not a stable surface.
export { substitute } from './driver/config';
export { recordedNdJsonStream, type WireDirection } from './driver/ndjson';
export { waitForQuiet } from './driver/quiet';
export { approvalIdFor } from './translate/approvals';
export {
  type AcpNegotiationInput,
  negotiateAcpCapabilities,
  responseHasModes,
} from './translate/capabilities';
