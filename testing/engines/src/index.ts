export * from './driver-harness';
export * from './engine-files';
export * from './engines';
export * from './gemini-sessions';
export * from './serve-process';
