import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import {
  type ArtifactRef,
  type ArtifactWithPreview,
  type CanonicalEvent,
  type JsonValue,
  jsonEqual,
  MAX_PREVIEW_CHARS,
} from '@agentlane/contract';
import { type ArtifactStore, type EventWrite, StoreError } from '@agentlane/store';
import { deriveEventId } from './event-id.js';
import type { BuiltEvent, BuiltStep } from './run-translation.js';
import { stableJson } from './stable-json.js';

export const DEFAULT_ARTIFACT_THRESHOLD_BYTES = 64 * 1024;
/** Moves of one offload at most (16 strings, then 16 lists): the seqs RunTranslation reserves per large key. */
const MOVES_PER_PASS = 16;
export const MAX_ARTIFACT_MOVES = 2 * MOVES_PER_PASS;

/**
 * Turns built events into store writes: stores the step's artifacts, moves payloads above the threshold to
 * the artifact store, and skips events identical to what this run already wrote (the store would treat them
 * as no-ops too; skipping saves the round trip and keeps the final pass free of needless revisions).
 *
 * Large payloads: a tool.completed `output` moves to `outputArtifact` (an ArtifactWithPreview). For any other
 * kind, the largest string fields are moved out one by one until the payload fits: each is replaced by its
 * bounded preview and an `artifact.created` event (key derived from the original) carries the ArtifactRef,
 * so the payload keeps its schema and the full content is one fetch away.
 */
export class Materializer {
  /**
   * The last write per eventId. Signatures are computed lazily, only when an eventId comes again: most
   * events are emitted once, and hashing every one of them would cost as much as storing it.
   */
  private readonly written = new Map<string, EventWrite>();
  /** The signature of a write in `written`, once an eventId came again (one map entry, not a wrapper per event). */
  private readonly sigs = new Map<string, string>();
  /** Set by remember(): the store held rows of this run before, so "not written by me" proves nothing. */
  private seeded = false;

  constructor(
    private readonly store: ArtifactStore,
    private readonly thresholdBytes: number = DEFAULT_ARTIFACT_THRESHOLD_BYTES,
  ) {}

  /** Seeds "already written" with the latest stored revisions (the final pass compares against them). */
  remember(event: CanonicalEvent, namespace?: string[]): void {
    this.seeded = true;
    this.written.set(event.eventId, namespace ? { event, namespace } : { event });
    this.sigs.delete(event.eventId);
  }

  /**
   * Synchronous when the step has no artifacts and no payload above the threshold (the common case).
   * `freshRun`: the caller is the live pass of a run that had no rows before it started, so an eventId this
   * materializer has not written yet was never stored: it goes as a `firstWrite` (no revision lookup).
   */
  toWrites(step: BuiltStep, freshRun = false): EventWrite[] | Promise<EventWrite[]> {
    const first = freshRun && !this.seeded;
    // Sized once per event (the async path needs the answer again).
    const large = step.events.map((e) => this.isLarge(e));
    if (step.artifacts.length === 0 && !large.includes(true)) return this.dedupe(step.events, first);
    return this.toWritesAsync(step, first, large);
  }

  /**
   * One event as it is stored (its payload offloaded when large), compared with nothing and remembered
   * nowhere: the final pass keeps digests of a long run's rows (writeDigest), not the rows.
   */
  materialize(built: BuiltEvent): EventWrite[] | Promise<EventWrite[]> {
    return this.isLarge(built) ? this.offload(built) : [built];
  }

  /** Stores a step's artifacts (content-addressed: storing one again is a no-op). */
  async storeArtifacts(artifacts: BuiltStep['artifacts']): Promise<void> {
    for (const a of artifacts) {
      if ('file' in a) {
        await this.storeFile(a);
        continue;
      }
      const bytes = typeof a.content === 'string' ? Buffer.from(a.content, 'utf8') : a.content;
      await this.store.putArtifact(bytes, a.ref.contentType);
    }
  }

  private async toWritesAsync(step: BuiltStep, first: boolean, large: boolean[]): Promise<EventWrite[]> {
    await this.storeArtifacts(step.artifacts);
    const all: EventWrite[] = [];
    for (const [i, built] of step.events.entries())
      all.push(...(large[i] ? await this.offload(built) : [built]));
    return this.dedupe(all, first);
  }

  /**
   * An artifact in a local file (an engine's overflow), streamed into the store a chunk at a time. Stored
   * already (the live pass did it, this is a re-translation): nothing to do. The file gone or changed (its
   * bytes no longer hash to the ref): the event keeps naming an artifact that is not there, the run goes on.
   */
  private async storeFile(a: { ref: ArtifactRef; file: string }): Promise<void> {
    if (await this.store.openArtifact(a.ref.id)) return;
    try {
      await this.store.putArtifactStream(createReadStream(a.file), a.ref.contentType, a.ref.sha256);
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (code !== 'ENOENT' && !(err instanceof StoreError && err.code === 'invalid')) throw err;
    }
  }

  private dedupe(writes: EventWrite[], first: boolean): EventWrite[] {
    const out: EventWrite[] = [];
    for (const w of writes) {
      const id = w.event.eventId;
      const prev = this.written.get(id);
      if (prev) {
        // Structurally equal (the final pass re-translating what the live pass wrote): the same signature,
        // found without serialising both (a long answer's deltas are megabytes).
        if (jsonEqual(prev.event, w.event) && jsonEqual(prev.namespace, w.namespace)) continue;
        const prevSig = this.sigs.get(id) ?? signature(prev.event, prev.namespace);
        const sig = signature(w.event, w.namespace);
        if (prevSig === sig) {
          this.sigs.set(id, prevSig);
          continue;
        }
        this.written.set(id, w);
        this.sigs.set(id, sig);
      } else {
        this.written.set(id, w);
        // The writes are this step's own objects (built for it), so the flag can go on them.
        if (first) w.firstWrite = true;
      }
      out.push(w);
    }
    return out;
  }

  private isLarge(built: BuiltEvent): boolean {
    return jsonLargerThan(built.event.payload, this.thresholdBytes);
  }

  private async offload(built: BuiltEvent): Promise<EventWrite[]> {
    const { event } = built;
    const extra: EventWrite[] = [];
    let payload = structuredClone(event.payload) as unknown as Record<string, JsonValue>;
    if (event.kind === 'tool.completed' && payload.output !== undefined) {
      const output = payload.output;
      const text = typeof output === 'string' ? output : JSON.stringify(output, null, 2);
      const contentType = typeof output === 'string' ? 'text/plain; charset=utf-8' : 'application/json';
      const outputArtifact = await this.withPreview(text, contentType);
      const { output: _moved, ...rest } = payload;
      payload = { ...rest, outputArtifact: outputArtifact as unknown as JsonValue };
    }
    let moves = 0;
    const movedOut = (path: (string | number)[], stored: ArtifactWithPreview) => {
      const pathKey = path.join('.');
      const toolCallId = typeof payload.toolCallId === 'string' ? payload.toolCallId : undefined;
      const messageId = typeof payload.messageId === 'string' ? payload.messageId : undefined;
      const artifactEvent = {
        ...event,
        eventId: deriveEventId(event.runId, `${event.eventId}:artifact:${pathKey}`),
        // A place of its own in the run's order (seq is a cursor: never two events at one), reserved by the
        // translation right after the event's own, so the live and the final pass give it the same one.
        seq: built.artifactSeq === undefined ? event.seq : built.artifactSeq + moves++,
        kind: 'artifact.created',
        payload: {
          artifact: stored.artifact,
          name: `${event.kind} ${pathKey}`,
          preview: stored.preview,
          ...(toolCallId ? { toolCallId } : {}),
          ...(messageId ? { messageId } : {}),
        },
      } as CanonicalEvent;
      extra.push(
        built.namespace ? { event: artifactEvent, namespace: built.namespace } : { event: artifactEvent },
      );
    };
    // Generic fallback: move the largest strings out until the payload fits (bounded number of moves).
    for (let i = 0; i < MOVES_PER_PASS && jsonLargerThan(payload, this.thresholdBytes); i++) {
      const largest = findLargestString(payload, []);
      if (!largest || largest.value.length <= MAX_PREVIEW_CHARS) break;
      const stored = await this.withPreview(largest.value, 'text/plain; charset=utf-8');
      setAt(payload, largest.path, stored.preview);
      movedOut(largest.path, stored);
    }
    // Still too large: many small items (a plan of 450,000 entries). The largest lists go whole to an
    // artifact (JSON) and keep the items that fit a preview, so the payload keeps its schema.
    for (let i = 0; i < MOVES_PER_PASS && jsonLargerThan(payload, this.thresholdBytes); i++) {
      const largest = findLargestList(payload, []);
      if (!largest || largest.json.length <= MAX_PREVIEW_CHARS) break;
      const artifact = await this.store.putArtifact(Buffer.from(largest.json, 'utf8'), 'application/json');
      const kept = previewItems(largest.value);
      setAt(payload, largest.path, kept);
      movedOut(largest.path, { artifact, preview: JSON.stringify(kept), truncated: true });
    }
    const moved = { ...event, payload } as unknown as CanonicalEvent;
    return [...extra, built.namespace ? { event: moved, namespace: built.namespace } : { event: moved }];
  }

  private async withPreview(text: string, contentType: string): Promise<ArtifactWithPreview> {
    const artifact = await this.store.putArtifact(Buffer.from(text, 'utf8'), contentType);
    const preview = truncatePreview(text);
    return { artifact, preview, truncated: preview.length < text.length };
  }
}

/** At most MAX_PREVIEW_CHARS characters, never splitting a surrogate pair. */
export function truncatePreview(text: string): string {
  if (text.length <= MAX_PREVIEW_CHARS) return text;
  let end = MAX_PREVIEW_CHARS;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return text.slice(0, end);
}

function signature(event: CanonicalEvent, namespace?: string[]): string {
  return JSON.stringify([stableEvent(event), namespace ?? null]);
}

/**
 * A short stand-in for a write's signature: equal digests, equal writes in the sense of dedupe(). The final
 * pass keeps one per stored eventId of a run instead of the rows themselves.
 */
export function writeDigest(write: EventWrite): string {
  // signature()'s two parts hashed apart, without quoting the event's JSON again inside an array: no JSON
  // text holds a raw newline, so the pair is unambiguous.
  return createHash('sha256')
    .update(stableEvent(write.event))
    .update('\n')
    .update(JSON.stringify(write.namespace ?? null))
    .digest('base64');
}

function stableEvent(event: CanonicalEvent): string {
  return stableJson(event);
}

/**
 * Whether the UTF-8 JSON of `value` is larger than `limit` bytes. Bounds first, computed without building the
 * string: above (a character escapes to at most 6 bytes) and below (a string is at least as many UTF-8 bytes
 * as UTF-16 units, plus its quotes); only a value between the two is serialised. A long answer's text is far
 * above the limit by its length alone, and serialising its megabytes on the event loop is what this avoids.
 */
export function jsonLargerThan(value: unknown, limit: number): boolean {
  let upper = 0;
  let lower = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && lower <= limit) {
    const v = stack.pop();
    if (typeof v === 'string') {
      upper += v.length * 6 + 2;
      lower += v.length + 2;
    } else if (v === null || typeof v !== 'object') upper += 24;
    else if (Array.isArray(v)) {
      upper += 2 + v.length;
      for (const x of v) stack.push(x);
    } else {
      const o = v as Record<string, unknown>;
      for (const k in o) {
        upper += k.length * 6 + 4;
        if (o[k] !== undefined) lower += k.length + 3;
        stack.push(o[k]);
      }
      upper += 2;
    }
  }
  if (lower > limit) return true;
  return upper > limit && jsonBytes(value) > limit;
}

function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
}

function findLargestString(
  value: JsonValue,
  path: (string | number)[],
): { path: (string | number)[]; value: string } | null {
  if (typeof value === 'string') return { path, value };
  let best: { path: (string | number)[]; value: string } | null = null;
  const consider = (child: JsonValue, key: string | number) => {
    const found = findLargestString(child, [...path, key]);
    if (found && (!best || found.value.length > best.value.length)) best = found;
  };
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) consider(value[i] as JsonValue, i);
  } else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) consider(v, k);
  return best;
}

/** The list (array) whose JSON is longest, with that JSON: what the item fallback moves out. */
function findLargestList(
  value: JsonValue,
  path: (string | number)[],
): { path: (string | number)[]; value: JsonValue[]; json: string } | null {
  let best: { path: (string | number)[]; value: JsonValue[]; json: string } | null = null;
  if (Array.isArray(value)) best = { path, value, json: JSON.stringify(value) };
  const children: [string | number, JsonValue][] = Array.isArray(value)
    ? value.map((v, i) => [i, v])
    : value && typeof value === 'object'
      ? Object.entries(value)
      : [];
  for (const [key, child] of children) {
    if (child === null || typeof child !== 'object') continue;
    const found = findLargestList(child, [...path, key]);
    // A list inside the best one is smaller than it: only a sibling can win.
    if (found && (!best || found.json.length > best.json.length)) best = found;
  }
  return best;
}

/** The first items of a list whose JSON fits a preview. */
function previewItems(items: readonly JsonValue[]): JsonValue[] {
  const kept: JsonValue[] = [];
  let chars = 2;
  for (const item of items) {
    chars += JSON.stringify(item).length + 1;
    if (chars > MAX_PREVIEW_CHARS) break;
    kept.push(item);
  }
  return kept;
}

function setAt(root: Record<string, JsonValue>, path: (string | number)[], replacement: JsonValue): void {
  let node: unknown = root;
  for (let i = 0; i < path.length - 1; i++)
    node = (node as Record<string | number, unknown>)[path[i] as string];
  (node as Record<string | number, unknown>)[path[path.length - 1] as string] = replacement;
}
