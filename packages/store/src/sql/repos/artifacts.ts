import { ARTIFACT_REF_PATHS, type ArtifactRef } from '@agentlane/contract';
import type { ArtifactStore, OpenArtifact } from '../../roles/artifacts.js';
import { StoreError } from '../../store.js';
import { openArtifactRow, putChunkedArtifact } from '../artifact-chunks.js';
import { decodeArtifact, encodeArtifact } from '../artifact-encoding.js';
import { sha256HexOf } from '../sorted-keys-json.js';
import { one, type SqlContext } from './context.js';

const ARTIFACT_ID = /^sha256-[0-9a-f]{64}$/;

/** Artifacts in SQL: content-addressed rows, inline or in chunks. */
export class SqlArtifacts implements ArtifactStore {
  constructor(private readonly ctx: SqlContext) {}

  /** Stored once per content: the id is `sha256-<hex>`; a second put of the same bytes returns the first ref. */
  async putArtifact(content: Uint8Array, contentType: string): Promise<ArtifactRef> {
    if (!(content instanceof Uint8Array)) throw new StoreError('invalid', 'content must be bytes');
    if (typeof contentType !== 'string' || contentType === '')
      throw new StoreError('invalid', 'contentType is required');
    const bytes = Buffer.from(content.buffer, content.byteOffset, content.byteLength);
    const sha256 = sha256HexOf(bytes);
    const id = `sha256-${sha256}`;
    const { stored, encoding } = await encodeArtifact(bytes);
    return this.ctx.tx(async (c) => {
      await c.run(
        'INSERT INTO artifacts (id, sha256, bytes, content_type, content, created_at, encoding) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING',
        [id, sha256, bytes.byteLength, contentType, stored, this.ctx.now(), encoding],
      );
      const row = await one(c, 'SELECT id, sha256, bytes, content_type FROM artifacts WHERE id = ?', [id]);
      return {
        id,
        sha256,
        bytes: Number(row?.bytes ?? bytes.byteLength),
        contentType: String(row?.content_type ?? contentType),
      };
    });
  }

  async artifactInThreads(id: string, threadIds: readonly string[]): Promise<boolean> {
    if (typeof id !== 'string' || !ARTIFACT_ID.test(id) || threadIds.length === 0) return false;
    const ids = threadIds.map(() => '?').join(', ');
    // Only where the contract puts an ArtifactRef (ARTIFACT_REF_PATHS): the same id anywhere else in an event
    // (a tool call's input the model filled in, a prompt's text) is not a reference and grants nothing. The
    // LIKE (an id is 'sha256-' and 64 hex digits: nothing LIKE treats specially) spares parsing the rows
    // that cannot match.
    const refs = Object.entries(ARTIFACT_REF_PATHS).flatMap(([kind, paths]) =>
      paths.map((path) => ({ sql: `(kind = ? AND ${this.jsonText(path)} = ?)`, params: [kind, id] })),
    );
    const row = await this.ctx.db.read((c) =>
      one(
        c,
        `SELECT 1 AS x FROM canonical_events WHERE thread_id IN (${ids}) AND event LIKE ?
           AND (${refs.map((r) => r.sql).join(' OR ')})
         UNION ALL SELECT 1 AS x FROM source_frame_raw r JOIN runs ON runs.run_id = r.run_id
           WHERE runs.thread_id IN (${ids}) AND r.artifact_id = ? LIMIT 1`,
        [...threadIds, `%${id}%`, ...refs.flatMap((r) => r.params), ...threadIds, id],
      ),
    );
    return row !== undefined;
  }

  /** The text at a JSON path of a row's `event`, in the backend's dialect. */
  private jsonText(path: readonly string[]): string {
    return this.ctx.db.dialect === 'postgres'
      ? `(event::json #>> '{${path.join(',')}}')`
      : `json_extract(event, '$.${path.join('.')}')`;
  }

  async putArtifactStream(
    content: AsyncIterable<Uint8Array>,
    contentType: string,
    sha256: string,
  ): Promise<ArtifactRef> {
    return putChunkedArtifact((fn) => this.ctx.tx(fn), content, contentType, sha256, this.ctx.now());
  }

  async openArtifact(id: string): Promise<OpenArtifact | null> {
    if (typeof id !== 'string' || !ARTIFACT_ID.test(id)) return null;
    const row = await this.ctx.db.read((c) => one(c, 'SELECT * FROM artifacts WHERE id = ?', [id]));
    return row ? openArtifactRow((fn) => this.ctx.db.read(fn), row) : null;
  }

  async getArtifact(id: string): Promise<{ ref: ArtifactRef; content: Uint8Array } | null> {
    if (typeof id !== 'string' || !ARTIFACT_ID.test(id)) return null;
    const row = await this.ctx.db.read((c) => one(c, 'SELECT * FROM artifacts WHERE id = ?', [id]));
    if (!row) return null;
    if (row.chunk_bytes !== null && row.chunk_bytes !== undefined) {
      const opened = openArtifactRow((fn) => this.ctx.db.read(fn), row);
      const pieces: Uint8Array[] = [];
      for await (const piece of opened.read()) pieces.push(piece);
      const whole = Buffer.concat(pieces);
      return { ref: opened.ref, content: new Uint8Array(whole.buffer, whole.byteOffset, whole.byteLength) };
    }
    const content = await decodeArtifact(row.content as Buffer, row.encoding, id);
    return {
      ref: {
        id,
        sha256: String(row.sha256),
        bytes: Number(row.bytes),
        contentType: String(row.content_type),
      },
      content: new Uint8Array(content.buffer, content.byteOffset, content.byteLength),
    };
  }
}
