export { OPENCODE_CAPABILITIES } from './capabilities';
export type { OpenCodeState } from './state';
export { openCodeTranslator } from './translator';

import { openCodeTranslator } from './translator';

/** The translators this adapter provides, by provider id (for `agentlane translate` and the replay engine). */
export const translators = { opencode: openCodeTranslator } as const;
