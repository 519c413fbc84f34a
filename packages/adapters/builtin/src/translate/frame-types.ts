import type { RuntimeFrame } from '@agentlane/runtime';
import type { Step } from './state.js';

/** The runtime frame of kind `K`. */
export type FrameOf<K extends RuntimeFrame['rt']> = Extract<RuntimeFrame, { rt: K }>;

/** One handler per runtime frame kind (a missing one does not compile). */
export type FrameHandlers<K extends RuntimeFrame['rt'] = RuntimeFrame['rt']> = {
  [P in K]: (step: Step, f: FrameOf<P>) => void;
};
