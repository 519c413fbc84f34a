import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { Ajv } from 'ajv';
import type { FastifySchemaCompiler, FastifyServerOptions } from 'fastify';

// Query strings, path params and headers arrive as text, so they are coerced ("5" → 5); a JSON body is
// never coerced, so `{"title": 5}` is refused instead of silently becoming "5".
const coercing = new Ajv({
  coerceTypes: 'array',
  useDefaults: true,
  removeAdditional: false,
  allErrors: false,
  strict: false,
});
const strict = new Ajv({
  coerceTypes: false,
  useDefaults: true,
  removeAdditional: false,
  allErrors: false,
  strict: false,
});

/**
 * Schemas are compiled when a route first needs them, not when it is registered: compiling every route's
 * validators and response serializers up front was about a quarter of `agentlane serve`'s start-up CPU,
 * and most routes are never called in a process's first seconds. The schemas are the server's own
 * constants, so a compile error is a bug the route tests meet on their first request.
 */
function lazy<F extends (...args: never[]) => unknown>(compile: () => F): F {
  let compiled: F | undefined;
  const run = ((...args: Parameters<F>) => {
    compiled ??= compile();
    const result = compiled(...args);
    // Fastify reads a failed validation's reasons from the function it was given.
    (run as unknown as { errors?: unknown }).errors = (compiled as unknown as { errors?: unknown }).errors;
    return result;
  }) as F;
  return run;
}

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
  lazy(() => (httpPart === 'body' ? strict : coercing).compile(schema as object));

type SerializerBuilder = ReturnType<typeof SerializerSelector>;

/** Fastify's own response serializer (fast-json-stringify), each route's compiled at its first reply. */
export const lazySerializers: NonNullable<
  NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']
> = {
  buildSerializer: (
    externalSchemas: Parameters<SerializerBuilder>[0],
    options: Parameters<SerializerBuilder>[1],
  ) => {
    const compile = SerializerSelector()(externalSchemas, options);
    return (routeSchema: Parameters<typeof compile>[0]) => lazy(() => compile(routeSchema));
  },
};
