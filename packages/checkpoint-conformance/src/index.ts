export { CASES, type ConformanceCase } from './cases.js';
export { memoryInitializer, pgInitializer, pgReachable, sqliteInitializer } from './initializers.js';
export {
  type CaseOutcome,
  describeConformance,
  runCase,
  runConformance,
  type SaverInitializer,
  type TestApi,
} from './runner.js';
export { freshId, SessionSim } from './session-sim.js';
