export { makeArtifact } from '@agentlane/engine-kit';

/** Outputs above this many characters travel as an artifact with a preview instead of inline. */
export const INLINE_OUTPUT_LIMIT = 8 * 1024;
