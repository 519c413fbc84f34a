export * from './approvals';
export * from './capabilities';
export type { AcpState } from './state';
export * from './translator';
