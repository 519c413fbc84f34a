// The protocols' public surface. `agentlane serve` imports `@agentlane/protocols/routes` alone: the ACP agent
// side (the ACP SDK) and the translations are loaded only where they are used.
export { type AcpAgentDeps, acpAgent, advertisedCapabilities } from './acp-agent/acp-agent.js';
export { type AcpBackend, localAcpBackend } from './acp-agent/backend.js';
export { answerOfPermission, questionAsPermission } from './acp-agent/questions.js';
export { remoteAcpBackend } from './acp-agent/remote-backend.js';
export { acpStopReason, SessionUpdateTranslator } from './acp-agent/session-updates.js';
export { screenedStream } from './acp-agent/stdio-screen.js';
export { AG_UI_PATH, type AgUiOptions, agUiRoutes } from './ag-ui/ag-ui-routes.js';
export { AgUiTranslator } from './ag-ui/ag-ui-translator.js';
export { chatMessages, chunksToMessage } from './ai-sdk-ui/chat-history.js';
export { AI_SDK_CHAT_PATH, type AiSdkChatOptions, aiSdkChatRoutes } from './ai-sdk-ui/chat-routes.js';
export {
  type AgentlaneMessageMetadata,
  type UiChunk,
  UiMessageTranslator,
} from './ai-sdk-ui/ui-message-translator.js';
export { type ProtocolOptions, protocolRoutes } from './routes.js';
