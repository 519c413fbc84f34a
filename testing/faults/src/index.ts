export * from './http-tally';
export * from './kill-cycles';
export * from './private-postgres';
export * from './serve-load';
export * from './sse-follower';
