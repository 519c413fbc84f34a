export * from './translate/index.js';

import { openCodeTranslator } from './translate/translator.js';

/** The translators this adapter provides, by provider id (for `agentlane translate` and the replay engine). */
export const translators = { opencode: openCodeTranslator } as const;

export { resolveOpenCodeBinary } from './driver/binary.js';
export { discoverEngines } from './driver/discover.js';
export { createDriver, type OpenCodeDriver, type OpenCodeDriverConfig } from './driver/driver.js';
export { parseModelRef } from './driver/model-ref.js';
