import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ServerContext } from '../context.js';
import { RETRY_AFTER_SECONDS } from '../errors.js';
import { HealthReply } from '../schemas.js';

type Check = { status: string; latencyMs?: number; error?: string };

/**
 * The store probe of /health, bounded: a load balancer needs an answer in about a second, and a PostgreSQL
 * that is down kept the probe in the pool's connect retries for 15 s. One probe at a time: while one is
 * unanswered, health requests wait on it (each up to its own bound) instead of queueing more queries behind
 * the outage; a probe unanswered for `staleMs` (a connection that hangs rather than fails) is left to settle
 * on its own and the next request starts another, so a recovered database is seen again.
 */
function storeProbe(ctx: ServerContext, timeoutMs: number): () => Promise<Check> {
  const staleMs = Math.max(10_000, 5 * timeoutMs);
  let pending: { answer: Promise<Check>; since: number } | undefined;
  const probe = async (): Promise<Check> => {
    const started = performance.now();
    try {
      await ctx.store.listThreads({ limit: 1 });
      return { status: 'ok', latencyMs: Math.round((performance.now() - started) * 100) / 100 };
    } catch (err) {
      // The message names what failed (e.g. connection refused); never the connection string.
      return { status: 'failed', error: err instanceof Error ? err.message.split('\n')[0] : 'unavailable' };
    }
  };
  const start = () => {
    const current = { answer: probe(), since: performance.now() };
    pending = current;
    void current.answer.finally(() => {
      if (pending === current) pending = undefined;
    });
    return current.answer;
  };
  return async () => {
    const answer = pending && performance.now() - pending.since < staleMs ? pending.answer : start();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<Check>((resolve) => {
      // Decided after the poll phase that follows the timer: an answer that arrived while the event loop was
      // busy is taken, not reported as a timeout.
      timer = setTimeout(
        () =>
          setImmediate(() =>
            resolve({ status: 'timeout', error: `the database did not answer within ${timeoutMs} ms` }),
          ),
        timeoutMs,
      );
    });
    try {
      return await Promise.race([answer, late]);
    } finally {
      clearTimeout(timer);
    }
  };
}

/** Writes fail for a full disk (the last write that failed did, and none has succeeded since). */
function writesCheck(ctx: ServerContext): Check {
  const full = ctx.writes.full;
  return full
    ? { status: 'full', error: `${full.error} (writes fail since ${full.since}; none has succeeded since)` }
    : { status: 'ok' };
}

export const healthRoutes =
  (ctx: ServerContext): FastifyPluginAsyncTypebox =>
  async (app) => {
    const probeStore = storeProbe(ctx, ctx.healthTimeoutMs);
    app.get(
      '/health',
      {
        schema: {
          summary: 'Status, version, store backend and checks',
          response: { 200: HealthReply, 503: HealthReply },
        },
      },
      async (_request, reply) => {
        const store = await probeStore();
        const writes = writesCheck(ctx);
        const status: 'ok' | 'degraded' | 'draining' = ctx.draining
          ? 'draining'
          : store.status === 'ok' && writes.status === 'ok'
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
          checks: { store, 'store:writes': writes, ...engineChecks },
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
