export { formatTable, mergeResults } from './report';
export type { BenchResult, BenchSuite } from './types';
