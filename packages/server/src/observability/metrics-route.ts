import type { FastifyInstance } from 'fastify';
import { assertAllThreads } from '../auth.js';
import type { ServerContext } from '../context.js';
import type { Metrics } from './metrics.js';

/**
 * GET /metrics in Prometheus text format, beside the API (not under /api/harness, where scrapers do not
 * look). Without tokens the server only listens on loopback and /metrics is open like every route; with
 * tokens it needs one scoped to all threads, since the figures cover every thread and engine.
 */
export function metricsRoute(app: FastifyInstance, ctx: ServerContext, metrics: Metrics): void {
  metrics.sampled.openStreams = () => ctx.connections.size;
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    assertAllThreads(ctx.auth.authenticate(request), 'reading /metrics');
    reply.header('Content-Type', metrics.registry.contentType);
    return metrics.registry.metrics();
  });
}
