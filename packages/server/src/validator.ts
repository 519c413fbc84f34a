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

/** How a number is written in a URL: decimal digits, no sign, exponent, hex prefix, space or leading zero. */
const DECIMAL = /^(0|[1-9][0-9]*)$/;

/** The numeric properties of an object schema (a query string's). */
function numericNames(schema: unknown): string[] {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  return Object.keys(properties).filter((name) => {
    const type = properties[name]?.type;
    return type === 'integer' || type === 'number';
  });
}

type Validate = ReturnType<FastifySchemaCompiler<unknown>>;

const notDecimal = (value: unknown): boolean =>
  (Array.isArray(value) ? value : [value]).some((v) => typeof v === 'string' && !DECIMAL.test(v));

/**
 * Ajv coerces a query string the way Number() reads it: `limit=1e2` would be 100, `0x10` 16, ` 5` 5. A
 * numeric parameter is refused unless written in plain decimal digits, as the stream cursor `?after` is.
 */
function decimalQuery(schema: unknown, validate: Validate): Validate {
  const names = numericNames(schema);
  if (names.length === 0) return validate;
  const run: Validate = (data) => {
    const bad = names.find((name) => notDecimal((data as Record<string, unknown> | null)?.[name]));
    if (bad === undefined) {
      const valid = validate(data);
      run.errors = validate.errors;
      return valid;
    }
    run.errors = [
      {
        instancePath: `/${bad}`,
        schemaPath: `#/properties/${bad}`,
        keyword: 'pattern',
        params: { pattern: DECIMAL.source },
        message: 'must be written in decimal digits only (e.g. 100)',
      },
    ];
    return false;
  };
  return run;
}

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const validate = lazy(() => (httpPart === 'body' ? strict : coercing).compile(schema as object));
  return httpPart === 'querystring' ? decimalQuery(schema, validate) : validate;
};

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
