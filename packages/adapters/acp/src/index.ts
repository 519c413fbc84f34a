export * from './approvals';
export * from './capabilities';
export * from './config';
export * from './config-schema';
export * from './driver';
export * from './presets';
export type { AcpState } from './state';
export * from './translator';
