export {
  type ConformanceSubject,
  checkClosedAtEnd,
  checkDeterministic,
  checkEventKeys,
  checkHarnessFrames,
  checkNeverThrows,
  checkPure,
  checkResplit,
  leftOpen,
} from './checks.js';
export { GARBAGE_FRAMES, HARNESS_SAMPLES, truncationsOf } from './frames.js';
export { freshFields, translateMeasured } from './fresh-fields.js';
export { CONFORMANCE_CTX, eventsOf, type Pass, recordsOf, runPass } from './run-translator.js';
export { describeTranslatorConformance } from './suite.js';
