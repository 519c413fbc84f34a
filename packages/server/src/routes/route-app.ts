import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

/** The Fastify instance a route plugin registers on (with the TypeBox type provider). */
export type RouteApp = Parameters<FastifyPluginAsyncTypebox>[0];
