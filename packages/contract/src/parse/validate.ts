import type { TSchema } from 'typebox';
import type { TLocalizedValidationError } from 'typebox/error';
// The JSON Schema compiler (typebox/schema), not typebox/compile: the contract's schemas are plain JSON
// Schema, and typebox/compile would also load the Value module (some 150 more modules at every start).
import { Compile, Errors as SchemaErrors } from 'typebox/schema';
import { appendPath, pointerToPath } from './json-path.js';
import { narrow } from './narrow.js';
import type { ParseIssue, ParseResult } from './result.js';

// Validates an untrusted value against a schema and explains failures in terms of the value, not the schema.
// Unions are explained by their discriminator (`kind` or `type`): a bad event reports the fields of its own
// kind instead of thirty "did not match" lines.

type Validator = ReturnType<typeof Compile<TSchema>>;
const validators = new WeakMap<TSchema, Validator>();

function validatorFor(schema: TSchema): Validator {
  let validator = validators.get(schema);
  if (!validator) {
    validator = Compile(schema);
    validators.set(schema, validator);
  }
  return validator;
}

/** A failed union that is not discriminated (e.g. `integer | null`): say which types were allowed. */
function explainUnions(errors: TLocalizedValidationError[]): TLocalizedValidationError[] {
  const unions = errors.filter((e) => e.keyword === 'anyOf');
  if (unions.length === 0) return errors;
  const inside = (e: TLocalizedValidationError) =>
    unions.some((u) => e.schemaPath.startsWith(`${u.schemaPath}/anyOf/`));
  return errors
    .filter((e) => !inside(e))
    .map((e) => {
      if (e.keyword !== 'anyOf') return e;
      const types = errors
        .filter(
          (sub) =>
            sub.keyword === 'type' &&
            sub.instancePath === e.instancePath &&
            sub.schemaPath.startsWith(`${e.schemaPath}/anyOf/`),
        )
        .map((sub) => String((sub.params as { type?: unknown }).type));
      const message =
        types.length > 0 ? `must be ${types.join(' or ')}` : 'must match one of the allowed shapes';
      return { ...e, message };
    });
}

/** The schema node at a `#/a/b` schema path, to read a cross-field rule's own description. */
function schemaAt(schema: unknown, schemaPath: string): unknown {
  let node = schema;
  for (const segment of schemaPath.replace(/^#\/?/, '').split('/')) {
    if (segment === '') continue;
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[segment.replaceAll('~1', '/').replaceAll('~0', '~')];
  }
  return node;
}

function toIssues(error: TLocalizedValidationError, schema: unknown): ParseIssue[] {
  const path = pointerToPath(error.instancePath);
  switch (error.keyword) {
    case 'if': {
      const rule = schemaAt(schema, `${error.schemaPath}/then`) as { description?: unknown } | undefined;
      const message = typeof rule?.description === 'string' ? rule.description : error.message;
      return [{ path, message, rule: 'if' }];
    }
    case 'required':
      return (error.params as { requiredProperties: string[] }).requiredProperties.map((property) => ({
        path: appendPath(path, property),
        message: 'is required',
        rule: 'required',
      }));
    case 'additionalProperties':
      return (error.params as { additionalProperties: string[] }).additionalProperties.map((property) => ({
        path: appendPath(path, property),
        message: 'is not a known field (additional properties are not allowed)',
        rule: 'additionalProperties',
      }));
    case 'boolean':
      // `schema is false` for an unknown field: the additionalProperties issue above already names it.
      return [];
    case 'enum': {
      const allowed = (error.params as { allowedValues?: unknown[] }).allowedValues ?? [];
      const message =
        allowed.length > 0
          ? `must be one of: ${allowed.map((v) => JSON.stringify(v)).join(', ')}`
          : error.message;
      return [{ path, message, rule: 'enum' }];
    }
    case 'const':
      return [
        {
          path,
          message: `must be ${JSON.stringify((error.params as { allowedValue: unknown }).allowedValue)}`,
          rule: 'const',
        },
      ];
    default:
      return [{ path, message: error.message, rule: error.keyword }];
  }
}

function dedupe(issues: ParseIssue[]): ParseIssue[] {
  const seen = new Set<string>();
  return issues.filter((issue) => {
    const key = `${issue.path}\u0000${issue.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * Checks `value` against `schema` (or against the branch `pick` selects, which must accept exactly what
 * `schema` accepts for that value). Never throws: a value that throws when read is reported as unreadable.
 * TypeBox stops collecting after its `maxErrors` setting (8 by default), so a very broken value reports the
 * first problems, not all of them.
 */
export function validate<T>(
  schema: TSchema,
  value: unknown,
  pick?: (value: unknown) => TSchema | undefined,
): ParseResult<T> {
  try {
    // `pick` names the only branch of a discriminated union that can match: same verdict, less work.
    const validator = validatorFor(pick?.(value) ?? schema);
    if (validator.Check(value)) return { ok: true, value: value as T };
    const narrowed = narrow(schema, value) as TSchema;
    const [, errors] = SchemaErrors(narrowed, value);
    const issues = dedupe(explainUnions(errors).flatMap((error) => toIssues(error, narrowed)));
    return {
      ok: false,
      errors: issues.length > 0 ? issues : [{ path: '$', message: 'is not valid', rule: 'schema' }],
    };
  } catch (error) {
    return {
      ok: false,
      errors: [{ path: '$', message: `could not be read: ${describe(error)}`, rule: 'readable' }],
    };
  }
}

function describe(error: unknown): string {
  try {
    return error instanceof Error ? error.message : String(error);
  } catch {
    return 'unknown error';
  }
}
