export { CASES, type ConformanceCase } from './cases';
export { memoryInitializer, pgInitializer, pgReachable, sqliteInitializer } from './initializers';
export {
  type CaseOutcome,
  describeConformance,
  runCase,
  runConformance,
  type SaverInitializer,
  type TestApi,
} from './runner';
export { freshId, SessionSim } from './session-sim';
