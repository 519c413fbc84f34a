import { createHash } from 'node:crypto';
import { expect } from 'vitest';
import type { EventWrite } from '../../src/index';
import type { SuiteContext } from './context';

/** ArtifactStore: content-addressed artifacts, inline and chunked. */
export function artifactTests(s: SuiteContext): void {
  const { test, code, newThread, newRun, event } = s;

  test('artifactInThreads: only an ArtifactRef where the contract puts one refers to an artifact', async ({
    store,
  }) => {
    const ref = await store.putArtifact(new TextEncoder().encode('referenced'), 'text/plain');
    const named = await store.putArtifact(new TextEncoder().encode('only named'), 'text/plain');
    const threadId = await newThread();
    const runId = await newRun(threadId);
    const refer = event(threadId, runId, 1);
    const name = event(threadId, runId, 2);
    const write = [
      { event: { ...refer.event, kind: 'artifact.created', payload: { artifact: ref } } },
      // A model's tool call carrying the other id as a JSON object's "id": content, not a reference.
      {
        event: {
          ...name.event,
          kind: 'tool.started',
          payload: { toolCallId: 'c1', name: 'x', input: { id: named.id, artifact: { id: named.id } } },
        },
      },
    ] as EventWrite[];
    await store.appendEvents(threadId, write, true);
    expect(await store.artifactInThreads(ref.id, [threadId])).toBe(true);
    expect(await store.artifactInThreads(named.id, [threadId])).toBe(false);
    expect(await store.artifactInThreads(ref.id, [await newThread()])).toBe(false);
  });

  test('artifacts: content-addressed by sha256 and stored once', async ({ store }) => {
    const content = new TextEncoder().encode('a large tool output\n'.repeat(1000));
    const ref = await store.putArtifact(content, 'text/plain');
    expect(ref.id).toMatch(/^sha256-[0-9a-f]{64}$/);
    expect(ref).toMatchObject({
      bytes: content.byteLength,
      sha256: ref.id.slice('sha256-'.length),
      contentType: 'text/plain',
    });
    expect(await store.putArtifact(content.slice(), 'text/plain')).toEqual(ref);
    const got = await store.getArtifact(ref.id);
    expect(got?.ref).toEqual(ref);
    expect(Buffer.from(got?.content ?? []).equals(Buffer.from(content))).toBe(true);
    expect(await store.getArtifact(`sha256-${'0'.repeat(64)}`)).toBeNull();
    expect(await store.getArtifact('../../etc/passwd')).toBeNull();
    const empty = await store.putArtifact(new Uint8Array(), 'application/octet-stream');
    expect((await store.getArtifact(empty.id))?.content.byteLength).toBe(0);
  });

  test('chunked artifacts: stored from a stream a chunk at a time, read whole or by ranges, checked against their sha256', async ({
    store,
  }) => {
    const size = 2 * 1024 * 1024 + 777;
    const content = Buffer.alloc(size);
    for (let i = 0; i < size; i++) content[i] = (i * 31 + (i >> 10)) & 0xff;
    const sha256 = createHash('sha256').update(content).digest('hex');
    async function* pieces() {
      for (let at = 0; at < size; at += 123_457) yield content.subarray(at, Math.min(size, at + 123_457));
    }
    const ref = await store.putArtifactStream(pieces(), 'text/plain', sha256);
    expect(ref).toEqual({ id: `sha256-${sha256}`, sha256, bytes: size, contentType: 'text/plain' });
    // Stored once: a second put of the same content writes nothing and answers the same ref.
    expect(await store.putArtifactStream(pieces(), 'text/plain', sha256)).toEqual(ref);
    const read = async (start?: number, end?: number) => {
      const opened = await store.openArtifact(ref.id);
      const out: Buffer[] = [];
      for await (const piece of opened?.read(start, end) ?? []) out.push(Buffer.from(piece));
      return Buffer.concat(out);
    };
    expect((await read()).equals(content)).toBe(true);
    const from = 1024 * 1024 - 3;
    expect((await read(from, from + 5)).equals(content.subarray(from, from + 6))).toBe(true);
    expect((await read(size - 4, size - 1)).equals(content.subarray(size - 4))).toBe(true);
    expect(Buffer.from((await store.getArtifact(ref.id))?.content ?? []).equals(content)).toBe(true);
    // An inline artifact opens the same way.
    const small = await store.putArtifact(new TextEncoder().encode('0123456789'), 'text/plain');
    const opened = await store.openArtifact(small.id);
    const part: Buffer[] = [];
    for await (const piece of opened?.read(2, 4) ?? []) part.push(Buffer.from(piece));
    expect(Buffer.concat(part).toString()).toBe('234');
    // Bytes that do not hash to the sha256 named: nothing is stored.
    const other = 'f'.repeat(64);
    expect(await code(store.putArtifactStream(pieces(), 'text/plain', other))).toBe('invalid');
    expect(await store.openArtifact(`sha256-${other}`)).toBeNull();
    expect(await code(store.putArtifactStream(pieces(), 'text/plain', 'nope'))).toBe('invalid');
  });

  test('inline artifacts: text is stored deflated and read back as it was (whole and by ranges); random bytes as they are', async ({
    store,
  }) => {
    const text = Buffer.from('a long answer, line after line.\n'.repeat(4000));
    const random = createHash('sha512');
    const noise = Buffer.concat(
      Array.from({ length: 200 }, (_, i) => random.update(String(i)).copy().digest()),
    );
    for (const content of [text, noise]) {
      const ref = await store.putArtifact(content, 'application/octet-stream');
      expect(ref.bytes).toBe(content.byteLength);
      expect(Buffer.from((await store.getArtifact(ref.id))?.content ?? []).equals(content)).toBe(true);
      const part: Buffer[] = [];
      for await (const piece of (await store.openArtifact(ref.id))?.read(5000, 5099) ?? [])
        part.push(Buffer.from(piece));
      expect(Buffer.concat(part).equals(content.subarray(5000, 5100))).toBe(true);
    }
  });
}
