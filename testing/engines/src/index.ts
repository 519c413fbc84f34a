export * from './driver-harness';
export * from './engine-files';
export * from './engines';
export * from './gemini-sessions';
export * from './pinned-install';
export * from './real-engines';
export * from './serve-process';
