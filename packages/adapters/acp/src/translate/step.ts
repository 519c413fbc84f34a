import type { StepBuilder } from '@agentlane/engine-kit';
import type { AcpState } from './state.js';

/** One ACP translation step: engine-kit's builder over the ACP state (frame keys `f<nativeSeq>`). */
export type Step = StepBuilder<AcpState>;
