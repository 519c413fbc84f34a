// The OpenCode translator alone (no driver, no SDK): what the replay engine and `agentlane translate` load.
export { OPENCODE_CAPABILITIES } from './capabilities.js';
export type { OpenCodeState } from './state.js';
export { OPENCODE_AUDIT_TRANSPORT, openCodeTranslator, RESPONSE_FRAME } from './translator.js';
