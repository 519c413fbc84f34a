import type { NegotiatedCapabilities } from '@agentlane/contract';

/**
 * OpenCode does not negotiate: its surfaces are static per server version (protocol-map §2C). `close` is
 * false (there is no close, only delete and abort); desktop and native embedding are not expressible.
 */
export const OPENCODE_CAPABILITIES: NegotiatedCapabilities = {
  streamingText: true,
  reasoning: true,
  plans: true,
  toolProgress: true,
  fileDiffs: true,
  childSessions: true,
  approvals: true,
  questions: true,
  commands: false,
  usage: true,
  modelSelection: true,
  resume: true,
  load: true,
  close: false,
  stop: true,
  reconcile: false,
  directTerminal: false,
  desktop: false,
  nativeEmbed: false,
  knowledgeTools: false,
};
