import { type TObject, type TProperties, Type } from 'typebox';
import type { JsonObject, JsonValue } from '../json.js';

// Building blocks shared by every schema. Objects are closed (additionalProperties: false): a new field is a
// contract change that comes with a schemaVersion bump, so a typo or an engine leaking a private field is
// caught at the boundary instead of travelling silently.

/** Options every named schema carries; `title` names it in the bundle's $defs. */
export interface NamedOptions {
  title?: string;
  description: string;
  /** Cross-field rules (if/then), for what a single property schema cannot say. */
  allOf?: object[];
}

/** A closed object: unknown fields are rejected. */
export function closedObject<P extends TProperties>(properties: P, options: NamedOptions): TObject<P> {
  return Type.Object(properties, { ...options, additionalProperties: false });
}

/** A non-empty identifier. */
export function id(description: string) {
  return Type.String({ minLength: 1, description });
}

/** A non-negative integer (counts, sizes, cursors). */
export function count(description: string) {
  return Type.Integer({ minimum: 0, description });
}

/** An ISO 8601 / RFC 3339 timestamp with a time zone. */
export function timestamp(description: string) {
  return Type.String({ format: 'date-time', description });
}

/** ULID: 26 characters of Crockford Base-32 (no I, L, O, U). */
export const ULID_PATTERN = '^[0-9A-HJKMNP-TV-Z]{26}$';

/**
 * Any JSON value. Input at a trust boundary is parsed JSON, which can only hold JSON values, so the schema
 * accepts anything; the static type stays precise.
 */
export const JsonValueSchema = Type.Unsafe<JsonValue>({
  title: 'JsonValue',
  description: 'Any JSON value: null, boolean, number, string, array or object.',
});

export const JsonObjectSchema = Type.Unsafe<JsonObject>({
  title: 'JsonObject',
  type: 'object',
  description: 'A JSON object with any members.',
});

/**
 * A JSON object as a map of JSON values. REST replies use it instead of JsonObject: a serializer driven by
 * the schema (Fastify's) writes every member of a map, but none of an object schema without properties.
 */
export const JsonObjectMapSchema = Type.Record(Type.String(), JsonValueSchema, {
  description: 'A JSON object with any members.',
});

/** A string or null. */
export function nullableString(description: string) {
  return Type.Union([Type.String(), Type.Null()], { description });
}
