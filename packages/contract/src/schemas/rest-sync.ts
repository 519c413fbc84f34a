import { Type } from 'typebox';
import { closedObject, JsonValueSchema } from './common.js';
import { VersionVectorSchema } from './version-vector.js';

/**
 * A vector a client sends: client ids as the server accepts them, counts a double holds exactly, and at most
 * 128 clients (every sync compares vectors with each other: their size bounds its work).
 */
const SentVectorSchema = Type.Record(
  // The clientId pattern with its length: a key no client could sync as would be merged into every vector.
  Type.String({ pattern: '^(?!__proto__$)[A-Za-z0-9_.:-]{1,128}$' }),
  Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }),
  {
    maxProperties: 128,
    additionalProperties: false,
    description: 'Client id -> the number of writes seen from that client.',
  },
);

export const SyncChangeSchema = closedObject(
  {
    key: Type.String({ minLength: 1, maxLength: 500, description: 'The synced key.' }),
    value: JsonValueSchema,
    version: Type.Integer({
      minimum: 1,
      maximum: Number.MAX_SAFE_INTEGER,
      description: "The client's own entry after this write.",
    }),
    vector: SentVectorSchema,
  },
  {
    title: 'SyncChange',
    description: 'One write a client sends: its own entry of `vector` equals `version`.',
  },
);

export const SyncRequestSchema = closedObject(
  {
    clientId: Type.String({
      minLength: 1,
      maxLength: 128,
      // `__proto__` is no key a JSON body may carry (it is refused there), so no vector could hold it.
      pattern: '^(?!__proto__$)[A-Za-z0-9_.:-]+$',
      description: 'The syncing client.',
    }),
    vector: SentVectorSchema,
    changes: Type.Array(SyncChangeSchema, { maxItems: 1000, description: 'Writes since the last sync.' }),
    cursor: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 501,
        description:
          "The previous answer's `cursor`, when it said `more`: where its page of conflicts goes on.",
      }),
    ),
  },
  { title: 'SyncRequest', description: "`POST /sessions/:id/sync`: the client's vector and its new writes." },
);

export const SyncChangeFromSchema = closedObject(
  {
    clientId: Type.String({ description: 'The client that wrote it.' }),
    key: Type.String({ description: 'The synced key.' }),
    value: JsonValueSchema,
    version: Type.Integer({ description: "The writer's own entry after this write." }),
    vector: VersionVectorSchema,
  },
  { title: 'SyncChangeFrom', description: 'A change the client has not seen yet, with its writer.' },
);

export const SyncConflictReportSchema = closedObject(
  {
    key: Type.String({ description: 'The key written concurrently.' }),
    changes: Type.Array(
      closedObject(
        {
          clientId: Type.String({ description: 'The writer.' }),
          version: Type.Integer({ description: "The writer's version." }),
          value: JsonValueSchema,
        },
        { description: 'One of the concurrent writes.' },
      ),
      { description: 'The concurrent writes.' },
    ),
  },
  {
    title: 'SyncConflictReport',
    description: 'Concurrent writes to one key, neither of which saw the other.',
  },
);

export const SyncResponseSchema = closedObject(
  {
    vector: VersionVectorSchema,
    changes: Type.Array(SyncChangeFromSchema, {
      description: 'Changes the client has not seen yet, in arrival order: all, or a page when `more`.',
    }),
    conflicts: Type.Array(SyncConflictReportSchema, {
      description: "The session's conflicts in key order: all, or a page when `more`.",
    }),
    more: Type.Optional(
      Type.Boolean({
        description:
          'Present (true) when this answer is a page: sync again with the merged vector and `cursor` for the rest.',
      }),
    ),
    cursor: Type.Optional(
      Type.String({ description: "With `more`: send it back as the request's `cursor` (opaque)." }),
    ),
  },
  {
    title: 'SyncResponse',
    description:
      'The merged vector, unseen changes and conflicts, a page of each of about 1 MiB and 256 KiB at most.',
  },
);
