export { OPENCODE_CAPABILITIES } from './translate/capabilities';
export type { OpenCodeState } from './translate/state';
export { OPENCODE_AUDIT_TRANSPORT, openCodeTranslator, RESPONSE_FRAME } from './translate/translator';

import { openCodeTranslator } from './translate/translator';

/** The translators this adapter provides, by provider id (for `agentlane translate` and the replay engine). */
export const translators = { opencode: openCodeTranslator } as const;

export { resolveOpenCodeBinary } from './driver/binary';
export { discoverEngines } from './driver/discover';
export { createDriver, type OpenCodeDriver, type OpenCodeDriverConfig } from './driver/driver';
export { parseModelRef } from './driver/model-ref';
