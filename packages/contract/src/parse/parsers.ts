import type { TSchema } from 'typebox';
import type { AuditableCall, AuditPayload } from '../audit.js';
import type { NegotiatedCapabilities } from '../capabilities.js';
import type { ChannelSnapshot, Checkpoint } from '../checkpoint.js';
import { type DeliveryRow, type StreamEvent, WIRE_ONLY_TYPES } from '../delivery.js';
import type { ArtifactRef, ArtifactWithPreview, CanonicalIdentity } from '../envelope.js';
import {
  CANONICAL_EVENT_KINDS,
  type CanonicalEvent,
  type CanonicalEventDraft,
  type CanonicalEventKind,
  type CanonicalEventOf,
  type CanonicalPayloads,
} from '../events.js';
import type { JsonValue } from '../json.js';
import { EVENT_SCHEMAS, PAYLOAD_SCHEMAS } from '../schemas/events.js';
import { CONTRACT_SCHEMAS, type ContractShapeName, type ContractShapes } from '../schemas/registry.js';
import type { SessionState } from '../session-state.js';
import type { VersionedChange, VersionVector } from '../version-vector.js';
import { canonicalFrameBranch, draftBranch, eventBranch, frameBranch, rowBranch } from './dispatch.js';
import type { ParseResult } from './result.js';
import { validate } from './validate.js';

// One parse function per shape, for every trust boundary (HTTP bodies, SSE frames, stored rows, fixtures).
// Each returns the typed value or issues naming the JSONPath and the rule; none throws.

/** Parses any named shape of the contract (the names are the bundle's $defs). */
export function parseShape<N extends ContractShapeName>(
  name: N,
  value: unknown,
): ParseResult<ContractShapes[N]> {
  return validate<ContractShapes[N]>(CONTRACT_SCHEMAS[name], value, FAST_PATHS[name]);
}

/** Branch pickers for the hot discriminated shapes (see dispatch.ts). */
const FAST_PATHS: Partial<Record<ContractShapeName, (value: unknown) => TSchema | undefined>> = {
  CanonicalEvent: eventBranch,
  CanonicalEventDraft: draftBranch,
  DeliveryRow: rowBranch,
  CanonicalStreamEvent: canonicalFrameBranch,
  StreamEvent: frameBranch,
};

const KINDS: ReadonlySet<string> = new Set(CANONICAL_EVENT_KINDS);
const WIRE_ONLY: ReadonlySet<string> = new Set(WIRE_ONLY_TYPES);

export function isCanonicalEventKind(value: unknown): value is CanonicalEventKind {
  return typeof value === 'string' && KINDS.has(value);
}

export const parseCanonicalEvent = (value: unknown): ParseResult<CanonicalEvent> =>
  parseShape('CanonicalEvent', value);
export const parseCanonicalEventDraft = (value: unknown): ParseResult<CanonicalEventDraft> =>
  parseShape('CanonicalEventDraft', value);
export const parseCanonicalIdentity = (value: unknown): ParseResult<CanonicalIdentity> =>
  parseShape('CanonicalIdentity', value);
export const parseArtifactRef = (value: unknown): ParseResult<ArtifactRef> =>
  parseShape('ArtifactRef', value);
export const parseArtifactWithPreview = (value: unknown): ParseResult<ArtifactWithPreview> =>
  parseShape('ArtifactWithPreview', value);
export const parseJsonValue = (value: unknown): ParseResult<JsonValue> => parseShape('JsonValue', value);
/** Strict: every flag present and boolean. Use normalizeNegotiatedCapabilities to read leniently. */
export const parseNegotiatedCapabilities = (value: unknown): ParseResult<NegotiatedCapabilities> =>
  parseShape('NegotiatedCapabilities', value);
export const parseDeliveryRow = (value: unknown): ParseResult<DeliveryRow> =>
  parseShape('DeliveryRow', value);
export const parseAuditableCall = (value: unknown): ParseResult<AuditableCall> =>
  parseShape('AuditableCall', value);
export const parseAuditPayload = (value: unknown): ParseResult<AuditPayload> =>
  parseShape('AuditPayload', value);
export const parseCheckpoint = (value: unknown): ParseResult<Checkpoint> => parseShape('Checkpoint', value);
export const parseChannelSnapshot = (value: unknown): ParseResult<ChannelSnapshot> =>
  parseShape('ChannelSnapshot', value);
export const parseSessionState = (value: unknown): ParseResult<SessionState> =>
  parseShape('SessionState', value);
export const parseVersionVector = (value: unknown): ParseResult<VersionVector> =>
  parseShape('VersionVector', value);
export const parseVersionedChange = (value: unknown): ParseResult<VersionedChange> =>
  parseShape('VersionedChange', value);

/** Parses an event that must be of one kind (e.g. a stored row whose kind column is known). */
export function parseEventOf<K extends CanonicalEventKind>(
  kind: K,
  value: unknown,
): ParseResult<CanonicalEventOf<K>> {
  return validate<CanonicalEventOf<K>>(EVENT_SCHEMAS[kind], value);
}

/** Parses the payload of one kind. */
export function parsePayload<K extends CanonicalEventKind>(
  kind: K,
  value: unknown,
): ParseResult<CanonicalPayloads[K]> {
  return validate<CanonicalPayloads[K]>(PAYLOAD_SCHEMAS[kind], value);
}

/** A frame whose `type` this reader does not know: not an error, the reader moves on (forward compatibility). */
export interface SkippedStreamEvent {
  ok: true;
  value: null;
  skipped: true;
  /** The unknown type, for a debug log. */
  type: string;
}

export type StreamEventParseResult = ParseResult<StreamEvent> | SkippedStreamEvent;

/**
 * Parses one SSE `data:` frame (already JSON-decoded). A frame with a `type` that is neither a canonical kind
 * nor a known wire-only type is skipped, not rejected: a newer server may add types. A frame of a known type
 * must be valid.
 */
export function parseStreamEvent(value: unknown): StreamEventParseResult {
  let type: unknown;
  try {
    type =
      typeof value === 'object' && value !== null && !Array.isArray(value)
        ? (value as { type?: unknown }).type
        : undefined;
  } catch {
    type = undefined;
  }
  if (typeof type === 'string' && type.length > 0 && !KINDS.has(type) && !WIRE_ONLY.has(type)) {
    return { ok: true, value: null, skipped: true, type };
  }
  return parseShape('StreamEvent', value);
}
