import { Ajv } from 'ajv';
import type { FastifySchemaCompiler } from 'fastify';

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

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? strict : coercing).compile(schema as object);
