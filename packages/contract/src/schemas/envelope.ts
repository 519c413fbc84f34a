import { Type } from 'typebox';
import { MAX_PREVIEW_CHARS, SCHEMA_VERSION } from '../envelope.js';
import { closedObject, count, id, JsonObjectSchema, timestamp } from './common.js';

export const CanonicalIdentitySchema = closedObject(
  {
    provider: id('Which engine produced the event: an open string, never an enum.'),
    nativeSessionId: Type.Optional(Type.String({ description: "The engine's own session id." })),
    nativeEventId: Type.Optional(Type.String({ description: "The engine's own event or frame id." })),
    nativeMessageId: Type.Optional(Type.String({ description: "The engine's own message id." })),
    nativePartId: Type.Optional(Type.String({ description: "The engine's own message-part id." })),
  },
  {
    title: 'CanonicalIdentity',
    description:
      "Provenance: the provider tag plus the engine's native ids, so a raw trace can be correlated.",
  },
);

export const ArtifactRefSchema = closedObject(
  {
    id: id('Artifact id, fetched lazily from the artifact route.'),
    bytes: count('Size of the content in bytes.'),
    sha256: Type.String({ pattern: '^[0-9a-f]{64}$', description: 'Lowercase hex sha256 of the content.' }),
    contentType: Type.String({ minLength: 1, description: 'MIME type of the content.' }),
  },
  {
    title: 'ArtifactRef',
    description: 'A large payload stored once, out of band, content-addressed by sha256.',
  },
);

export const ArtifactWithPreviewSchema = closedObject(
  {
    artifact: ArtifactRefSchema,
    preview: Type.String({
      maxLength: MAX_PREVIEW_CHARS,
      description: `A bounded preview (at most ${MAX_PREVIEW_CHARS} characters) a timeline can show at once.`,
    }),
    truncated: Type.Boolean({ description: 'True when the preview is shorter than the content.' }),
  },
  { title: 'ArtifactWithPreview', description: 'An artifact plus a bounded preview.' },
);

export const ProviderMetadataSchema = Type.Record(Type.String(), JsonObjectSchema, {
  title: 'ProviderMetadata',
  description: 'Engine-specific extras keyed by provider id; never new top-level fields.',
});

/** The envelope fields, spread into every event schema (kept unnamed: each event lists them itself). */
export const envelopeProperties = {
  schemaVersion: Type.Integer({
    minimum: 1,
    maximum: SCHEMA_VERSION,
    description: `Contract version of the event; readers accept 1..${SCHEMA_VERSION} (older rows stay readable).`,
  }),
  eventId: id('Stable per (run, native event): re-emitting it makes a revision, not a duplicate.'),
  seq: count("agentlane's own monotonic cursor within the run's source order."),
  runId: id('The run the event belongs to.'),
  threadId: id('The thread (conversation and delivery channel) the event belongs to.'),
  turnId: Type.String({
    description:
      'The turn (prompt to answer cycle) the event belongs to; may be empty before the first turn.',
  }),
  ts: timestamp("Assigned by the backend; a provider's clock is never trusted."),
  identity: CanonicalIdentitySchema,
};
