export * from './frame-fuzz';
export * from './fuzz-runner';
export * from './http-fuzz';
export * from './http-tally';
export * from './kill-cycles';
export * from './private-postgres';
export * from './serve-load';
export * from './sse-follower';
