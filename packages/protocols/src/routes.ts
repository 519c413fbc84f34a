import type { ServerContext } from '@agentlane/server';
import type { FastifyPluginAsync } from 'fastify';
import { type AgUiOptions, agUiRoutes } from './ag-ui/ag-ui-routes.js';
import { type AiSdkChatOptions, aiSdkChatRoutes } from './ai-sdk-ui/chat-routes.js';
import type { StreamRegistry } from './sse-out.js';

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
