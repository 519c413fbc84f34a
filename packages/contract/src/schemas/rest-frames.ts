import { Type } from 'typebox';
import { closedObject, count, JsonValueSchema } from './common.js';

export const RawFrameViewSchema = closedObject(
  {
    bytes: count('Size of the raw bytes as received.'),
    sha256: Type.String({ description: 'sha256 hex of the raw bytes as received.' }),
    storage: Type.Enum(['inline', 'artifact', 'omitted'], { description: 'Where the bytes are kept.' }),
    text: Type.Optional(Type.String({ description: 'The inline bytes when they decode as UTF-8.' })),
    base64: Type.Optional(Type.String({ description: 'The inline bytes otherwise.' })),
    artifactId: Type.Optional(Type.String({ description: 'Larger raw frames: `GET /artifacts/:id`.' })),
  },
  { title: 'RawFrameView', description: "A native frame's raw sidecar: the bytes as the wire carried them." },
);

export const NativeFrameViewSchema = closedObject(
  {
    nativeSeq: Type.Integer({ minimum: 1, description: "The frame's place in its run's source lane." }),
    receivedAt: Type.String({ description: 'When the lane received it (ISO 8601).' }),
    frame: JsonValueSchema,
    raw: Type.Union([RawFrameViewSchema, Type.Null()], {
      description: 'Its raw sidecar, null when the adapter kept none.',
    }),
  },
  { title: 'NativeFrameView', description: "One native frame of a run's source lane." },
);

export const FramePageSchema = closedObject(
  {
    frames: Type.Array(NativeFrameViewSchema, { description: 'In nativeSeq order.' }),
    nextAfter: Type.Union([count('The last nativeSeq of this page.'), Type.Null()], {
      description: 'Pass as `after` for the next page; null after the last frame.',
    }),
  },
  {
    title: 'FramePage',
    description: "`GET /sessions/:id/runs/:runId/frames`: one page of a run's native frames.",
  },
);
