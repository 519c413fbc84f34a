import type { ArtifactRef } from '@agentlane/contract';

/** A stored artifact, opened for reading. */
export interface OpenArtifact {
  ref: ArtifactRef;
  /** The bytes from `start` to `end` inclusive (default: all), a piece at a time. */
  read(start?: number, end?: number): AsyncIterable<Uint8Array>;
}

/** Content-addressed artifacts (`sha256-<hex>`), stored once. */
export interface ArtifactStore {
  putArtifact(content: Uint8Array, contentType: string): Promise<ArtifactRef>;
  /**
   * Stores content too large to hold in memory, read piece by piece (a file's stream), in chunks; `sha256` is
   * what the content must hash to (checked as it goes; a mismatch stores nothing: StoreError invalid).
   */
  putArtifactStream(
    content: AsyncIterable<Uint8Array>,
    contentType: string,
    sha256: string,
  ): Promise<ArtifactRef>;
  /** The whole content in memory (a chunked artifact is put together): for small ones; serve with openArtifact. */
  getArtifact(id: string): Promise<{ ref: ArtifactRef; content: Uint8Array } | null>;
  /** An artifact's ref and a reader of byte ranges that holds at most one chunk at a time. */
  openArtifact(id: string): Promise<OpenArtifact | null>;
  /** Whether an event or a raw frame of one of these threads names the artifact (what a scoped token may read). */
  artifactInThreads(id: string, threadIds: readonly string[]): Promise<boolean>;
}
