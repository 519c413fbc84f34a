export * from './approvals';
export * from './capabilities';
export * from './config';
export * from './config-schema';
export { discoverEngines } from './discover';
export * from './driver';
export * from './presets';
export type { AcpState } from './state';
export * from './translator';
