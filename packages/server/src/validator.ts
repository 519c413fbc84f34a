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
 * A declared parameter written with brackets (`after[]=3`, `after[a]=3`, what some query encoders send for
 * arrays and objects) is refused naming it: the parser keeps such a key as it is, so the route never read it
 * and a stream replayed from 0 instead of answering 400.
 */
function checkedQuery(schema: unknown, validate: Validate): Validate {
  const names = Object.keys((schema as { properties?: Record<string, unknown> }).properties ?? {});
  const numeric = numericNames(schema);
  const run: Validate = (data) => {
    const query = data as Record<string, unknown> | null;
    const keys = query && typeof query === 'object' ? Object.keys(query) : [];
    const bracketed = names.find((name) => keys.some((key) => key.startsWith(`${name}[`)));
    if (bracketed !== undefined) {
      run.errors = [
        refusal(bracketed, 'must be written as name=value (a bracketed name such as name[] is not read)'),
      ];
      return false;
    }
    const bad = numeric.find((name) => notDecimal(query?.[name]));
    if (bad !== undefined) {
      run.errors = [refusal(bad, 'must be written in decimal digits only (e.g. 100)')];
      return false;
    }
    const valid = validate(data);
    run.errors = validate.errors;
    return valid;
  };
  return run;
}

function refusal(name: string, message: string) {
  return {
    instancePath: `/${name}`,
    schemaPath: `#/properties/${name}`,
    keyword: 'pattern',
    params: { pattern: DECIMAL.source },
    message,
  };
}

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const validate = lazy(() => (httpPart === 'body' ? strict : coercing).compile(schema as object));
  return httpPart === 'querystring' ? checkedQuery(schema, validate) : validate;
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
