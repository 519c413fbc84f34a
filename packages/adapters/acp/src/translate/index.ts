// The ACP translator alone (no driver, no SDK): what the replay engine and `agentlane translate` load.
export type { AcpState } from './state.js';
export {
  ACP_APPROVAL_ID_EVENT,
  ACP_AUDIT_TRANSPORT,
  ACP_COMMANDS_EVENT,
  ACP_WIRE_WARNING_EVENT,
  type AcpTranslatorOptions,
  acpTranslator,
  createAcpTranslator,
} from './translator.js';
