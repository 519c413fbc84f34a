import type { FastifyError } from 'fastify';

const CONTEXT_NAMES: Record<string, string> = {
  querystring: 'query',
  params: 'params',
  body: 'body',
  headers: 'headers',
};

/**
 * The dotted name of the input that failed validation, e.g. `body.prompt`, `query.limit`,
 * `body.changes[0].key`, built from the first Ajv error.
 */
export function validationField(err: FastifyError): string {
  const context = CONTEXT_NAMES[err.validationContext ?? 'body'] ?? 'body';
  const first = err.validation?.[0];
  if (!first) return context;
  let path = '';
  for (const segment of first.instancePath.split('/').slice(1)) {
    const name = segment.replace(/~1/g, '/').replace(/~0/g, '~');
    path += /^\d+$/.test(name) ? `[${name}]` : `.${name}`;
  }
  const params = first.params as { missingProperty?: string; additionalProperty?: string };
  if (params.missingProperty) path += `.${params.missingProperty}`;
  else if (params.additionalProperty) path += `.${params.additionalProperty}`;
  return `${context}${path}`;
}
