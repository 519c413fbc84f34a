import type { JsonObject } from './json.js';

/** The contract version written into every event. Bumped only with a migration; readers tolerate older rows. */
export const SCHEMA_VERSION = 1 as const;

/**
 * Which engine produced an event. An open string, never an enum: a new engine adds a string and no code
 * above its adapter changes.
 */
export type ProviderId = string;

/**
 * Provenance: the engine's own ids next to the neutral shape, so a raw trace can always be correlated
 * without the UI understanding any provider's private schema.
 */
export interface CanonicalIdentity {
  provider: ProviderId;
  nativeSessionId?: string;
  nativeEventId?: string;
  nativeMessageId?: string;
  nativePartId?: string;
}

/** The envelope every canonical event carries. */
export interface CanonicalEventBase {
  /** Contract version of this event (currently 1). */
  schemaVersion: number;
  /** Stable per (run, native event): re-emitting it makes a revision, not a duplicate. */
  eventId: string;
  /** agentlane's own monotonic cursor within the run's source order. */
  seq: number;
  runId: string;
  threadId: string;
  turnId: string;
  /** ISO 8601, assigned by the backend; a provider's clock is never trusted. */
  ts: string;
  identity: CanonicalIdentity;
}

/**
 * A large payload stored once, out of band, content-addressed by sha256. Clients fetch it lazily from
 * the artifact route.
 */
export interface ArtifactRef {
  id: string;
  bytes: number;
  /** Lowercase hex sha256 of the content. */
  sha256: string;
  contentType: string;
}

/** Upper bound, in characters, of every `preview` carried next to an ArtifactRef. */
export const MAX_PREVIEW_CHARS = 2048;

/** An artifact plus a bounded preview (at most MAX_PREVIEW_CHARS characters) that a timeline can show at once. */
export interface ArtifactWithPreview {
  artifact: ArtifactRef;
  preview: string;
  /** True when the preview is shorter than the content. */
  truncated: boolean;
}

/** Engine-specific extras, keyed by provider; never new top-level fields. */
export type ProviderMetadata = Record<ProviderId, JsonObject>;
