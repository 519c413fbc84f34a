export { OPENCODE_CAPABILITIES } from './capabilities';
export type { OpenCodeState } from './state';
export { OPENCODE_AUDIT_TRANSPORT, openCodeTranslator, RESPONSE_FRAME } from './translator';

import { openCodeTranslator } from './translator';

/** The translators this adapter provides, by provider id (for `agentlane translate` and the replay engine). */
export const translators = { opencode: openCodeTranslator } as const;

export { resolveOpenCodeBinary } from './driver/binary';
export { discoverEngines } from './driver/discover';
export { createDriver, type OpenCodeDriver, type OpenCodeDriverConfig } from './driver/driver';
export { parseModelRef } from './driver/model-ref';
