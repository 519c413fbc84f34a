export {
  type ConformanceSubject,
  checkClosedAtEnd,
  checkDeterministic,
  checkEventKeys,
  checkHarnessFrames,
  checkNeverThrows,
  checkResplit,
  leftOpen,
} from './checks';
export { GARBAGE_FRAMES, HARNESS_SAMPLES, truncationsOf } from './frames';
export { CONFORMANCE_CTX, eventsOf, type Pass, recordsOf, runPass } from './run-translator';
export { describeTranslatorConformance } from './suite';
