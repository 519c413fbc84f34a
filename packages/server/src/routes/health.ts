import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ServerContext } from '../context.js';
import { RETRY_AFTER_SECONDS } from '../errors.js';
import { HealthReply } from '../schemas.js';

export const healthRoutes =
  (ctx: ServerContext): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/health',
      {
        schema: {
          summary: 'Status, version, store backend and checks',
          response: { 200: HealthReply, 503: HealthReply },
        },
      },
      async (_request, reply) => {
        const started = performance.now();
        let store: { status: string; latencyMs?: number; error?: string };
        try {
          await ctx.store.listThreads({ limit: 1 });
          store = { status: 'ok', latencyMs: Math.round((performance.now() - started) * 100) / 100 };
        } catch (err) {
          // The message names what failed (e.g. connection refused); never the connection string.
          store = {
            status: 'failed',
            error: err instanceof Error ? err.message.split('\n')[0] : 'unavailable',
          };
        }
        const status: 'ok' | 'degraded' | 'draining' = ctx.draining
          ? 'draining'
          : store.status === 'ok'
            ? 'ok'
            : 'degraded';
        reply.code(status === 'ok' ? 200 : 503);
        // A load balancer or client polling health is told when to look again, as every other 503 does.
        if (status !== 'ok') reply.header('retry-after', String(RETRY_AFTER_SECONDS));
        // An engine that failed its start probe is not offered; it does not make the server unhealthy.
        const engineChecks = Object.fromEntries(
          (ctx.unavailableEngines ?? []).map((e) => [
            `engine:${e.name}`,
            { status: 'unavailable', error: e.reason },
          ]),
        );
        return {
          status,
          version: ctx.version,
          store: ctx.store.backend,
          checks: { store, ...engineChecks },
          openStreams: ctx.connections.size,
          engines: ctx.engines.list().map((e) => ({
            name: e.name,
            provider: e.provider,
            label: e.label,
            ...(e.staticCapabilities ? { capabilities: { ...e.staticCapabilities } } : {}),
          })),
        };
      },
    );
  };
