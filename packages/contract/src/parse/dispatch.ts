import { type TSchema, Type } from 'typebox';
import type { WIRE_ONLY_TYPES } from '../delivery.js';
import { CANONICAL_EVENT_KINDS, type CanonicalEventKind } from '../events.js';
import { closedObject } from '../schemas/common.js';
import {
  CanonicalStreamEventSchema,
  DeliveryRowSchema,
  RunCanonicalizedEventSchema,
  RunStatusEventSchema,
  StreamClosingEventSchema,
  StreamOpenedEventSchema,
  SyncConflictEventSchema,
} from '../schemas/delivery.js';
import { DRAFT_SCHEMAS, EVENT_SCHEMAS } from '../schemas/events.js';

// Fast paths for the hot shapes. A compiled union tries its branches one after another, so validating an
// event of the 30th kind would check 30 envelopes. Every union here is discriminated (`kind` / `type`), so
// exactly one branch can match: picking it first gives the same verdict at a fraction of the cost. When the
// discriminator is missing or unknown, callers fall back to the full schema, which then explains the error.

const KINDS: ReadonlySet<string> = new Set(CANONICAL_EVENT_KINDS);

function tagOf(value: unknown, field: string): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  return (value as Record<string, unknown>)[field];
}

function eventKindOf(value: unknown): unknown {
  return tagOf(tagOf(value, 'event'), 'kind');
}

/** Built on first use per kind: the row / frame schema with `event` fixed to that kind's schema. */
function perKind(build: (kind: CanonicalEventKind) => TSchema): (kind: CanonicalEventKind) => TSchema {
  const cache = new Map<CanonicalEventKind, TSchema>();
  return (kind) => {
    let schema = cache.get(kind);
    if (!schema) {
      schema = build(kind);
      cache.set(kind, schema);
    }
    return schema;
  };
}

const rowOfKind = perKind((kind) =>
  closedObject(
    { ...DeliveryRowSchema.properties, kind: Type.Literal(kind), event: EVENT_SCHEMAS[kind] },
    { description: `A delivery row of a \`${kind}\` event.` },
  ),
);

const frameOfKind = perKind((kind) =>
  closedObject(
    { ...CanonicalStreamEventSchema.properties, type: Type.Literal(kind), event: EVENT_SCHEMAS[kind] },
    { description: `A stream frame of a \`${kind}\` event.` },
  ),
);

const WIRE_ONLY_SCHEMAS: Record<(typeof WIRE_ONLY_TYPES)[number], TSchema> = {
  'stream.opened': StreamOpenedEventSchema,
  'run.status': RunStatusEventSchema,
  'run.canonicalized': RunCanonicalizedEventSchema,
  'sync.conflict': SyncConflictEventSchema,
  'stream.closing': StreamClosingEventSchema,
};

/** The one branch a canonical event can match, or undefined when its kind is not known. */
export function eventBranch(value: unknown): TSchema | undefined {
  const kind = tagOf(value, 'kind');
  return typeof kind === 'string' && KINDS.has(kind) ? EVENT_SCHEMAS[kind as CanonicalEventKind] : undefined;
}

/** The one branch a draft can match, or undefined when its kind is not known. */
export function draftBranch(value: unknown): TSchema | undefined {
  const kind = tagOf(value, 'kind');
  return typeof kind === 'string' && KINDS.has(kind) ? DRAFT_SCHEMAS[kind as CanonicalEventKind] : undefined;
}

/** The per-kind row schema when the row's kind and its event's kind agree on a known kind. */
export function rowBranch(value: unknown): TSchema | undefined {
  const kind = tagOf(value, 'kind');
  return typeof kind === 'string' && KINDS.has(kind) && eventKindOf(value) === kind
    ? rowOfKind(kind as CanonicalEventKind)
    : undefined;
}

/** The per-kind frame schema for a canonical frame whose type is its event's kind. */
export function canonicalFrameBranch(value: unknown): TSchema | undefined {
  const type = tagOf(value, 'type');
  return typeof type === 'string' && KINDS.has(type) && eventKindOf(value) === type
    ? frameOfKind(type as CanonicalEventKind)
    : undefined;
}

/** The one StreamEvent branch a frame can match, or undefined (unknown type or mismatched event kind). */
export function frameBranch(value: unknown): TSchema | undefined {
  const type = tagOf(value, 'type');
  if (typeof type !== 'string') return undefined;
  if (Object.hasOwn(WIRE_ONLY_SCHEMAS, type))
    return WIRE_ONLY_SCHEMAS[type as keyof typeof WIRE_ONLY_SCHEMAS];
  return canonicalFrameBranch(value);
}
