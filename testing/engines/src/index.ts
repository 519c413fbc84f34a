export * from './driver-harness';
export * from './engines';
