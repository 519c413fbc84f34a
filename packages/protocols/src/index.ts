import type { ServerContext } from '@agentlane/server';
import type { FastifyPluginAsync } from 'fastify';
import { type AgUiOptions, agUiRoutes } from './ag-ui/ag-ui-routes.js';
import { type AiSdkChatOptions, aiSdkChatRoutes } from './ai-sdk-ui/chat-routes.js';
import type { StreamRegistry } from './sse-out.js';

export { type AcpAgentDeps, acpAgent, advertisedCapabilities } from './acp-agent/acp-agent.js';
export { type AcpBackend, localAcpBackend } from './acp-agent/backend.js';
export { answerOfPermission, questionAsPermission } from './acp-agent/questions.js';
export { remoteAcpBackend } from './acp-agent/remote-backend.js';
export { acpStopReason, SessionUpdateTranslator } from './acp-agent/session-updates.js';
export { AG_UI_PATH, type AgUiOptions, agUiRoutes } from './ag-ui/ag-ui-routes.js';
export { AgUiTranslator } from './ag-ui/ag-ui-translator.js';
export { chatMessages, chunksToMessage } from './ai-sdk-ui/chat-history.js';
export { AI_SDK_CHAT_PATH, type AiSdkChatOptions, aiSdkChatRoutes } from './ai-sdk-ui/chat-routes.js';
export {
  type AgentlaneMessageMetadata,
  type UiChunk,
  UiMessageTranslator,
} from './ai-sdk-ui/ui-message-translator.js';

export interface ProtocolOptions {
  aiSdk?: AiSdkChatOptions;
  agUi?: AgUiOptions;
}

/**
 * Every protocol translation as one set of routes for `createServer({ routes: [protocolRoutes()] })`, under
 * /api/harness/protocols/*, behind the server's auth. Their streams end when the server shuts down.
 */
export function protocolRoutes(options: ProtocolOptions = {}): (ctx: ServerContext) => FastifyPluginAsync {
  return (ctx) => async (app) => {
    const registry: StreamRegistry = new Set();
    app.addHook('preClose', async () => {
      for (const stream of [...registry]) stream.end();
    });
    await app.register(aiSdkChatRoutes(options.aiSdk ?? {}, registry)(ctx));
    await app.register(agUiRoutes(options.agUi ?? {}, registry)(ctx));
  };
}
