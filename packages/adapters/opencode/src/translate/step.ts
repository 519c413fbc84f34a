import type { StepBuilder } from '@agentlane/engine-kit';
import type { OpenCodeState } from './state.js';

/** One OpenCode translation step: engine-kit's builder over the OpenCode state (frame keys `n<nativeSeq>`). */
export type Step = StepBuilder<OpenCodeState>;
