import { createHash, randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JsonValue } from '@agentlane/contract';
import { OutputSpool, type SpilledOutput } from './tools/output-spool.js';

/**
 * The engine's output bounds (README "Output volume"): what passes one goes to a file in `outputDir`, which
 * the lane stores as a chunked artifact and the server serves (GET /artifacts/:id); events, checkpoints and
 * the model's context keep a bounded part and the artifact's id.
 */
export interface OutputBounds {
  /** Model text (answers and reasoning) of one turn, all calls together. */
  turnTextBytes: number;
  /**
   * Model text of one turn past `turnTextBytes` kept in its overflow files; past it the model call is stopped
   * and the turn fails (an endless answer was read, held by the SDK and written to disk without end).
   */
  turnTextOverflowBytes: number;
  /** Tool calls of one model step that are run; the calls past it are answered as refused, never run. */
  maxToolCallsPerStep: number;
  /**
   * The tool-call input one model call streams, every tool call of it together (UTF-8 bytes of its
   * tool-input deltas); past it the call is stopped and the turn fails. A tool needs its whole input, so unlike
   * text there is no part to show and rest to spill: the provider and the SDK hold a call's input whole while it
   * streams, and an endless one was held without end.
   */
  toolInputBytes: number;
  /** One tool call's result as JSON. */
  toolResultBytes: number;
  /** Where overflow files go. */
  outputDir: string;
}

export const DEFAULT_OUTPUT_BOUNDS: OutputBounds = {
  // A model's longest single answer (64k-128k output tokens) is well under 1 MB of text.
  turnTextBytes: 1_000_000,
  // Past turnTextBytes only a runaway or hostile stream is left: keep a sample of it, then stop the call.
  turnTextOverflowBytes: 8_000_000,
  // Far more than a model asks for in one message (parallel calls come in handfuls).
  maxToolCallsPerStep: 128,
  // 16 MiB: far above any input a model writes (its whole output is 64k-128k tokens, well under 1 MB), so only a
  // runaway or hostile stream meets it; counted per model call, so a turn's steps may each write large files.
  toolInputBytes: 16 * 1024 * 1024,
  // Above read_file's 256 KiB, so a whole read passes; far above what a model's context takes in.
  toolResultBytes: 512 * 1024,
  outputDir: join(tmpdir(), 'agentlane-tool-output'),
};

/** How much of a result past its bound is kept in the tool result the model and the events see. */
export const RESULT_PREVIEW_CHARS = 16_384;

/** The artifact id of a spilled file: content-addressed like every artifact. */
export const artifactIdOf = (spilled: { sha256: string }): string => `sha256-${spilled.sha256}`;

/** Writes a result that is already in memory to an overflow file (0600), so nothing after holds it whole. */
export async function spillText(dir: string, callId: string, text: string): Promise<SpilledOutput> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, `${callId.replace(/[^A-Za-z0-9_-]/g, '_')}-${randomUUID()}.json`);
  const bytes = Buffer.from(text, 'utf8');
  await writeFile(path, bytes, { mode: 0o600 });
  return {
    path,
    bytes: bytes.byteLength,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    shownBytes: 0,
  };
}

/**
 * A tool result over its bound (or over what the turn has left): the JSON goes to a file, the result becomes
 * `{ truncated, bytes, preview, artifactId }` (the first RESULT_PREVIEW_CHARS of the JSON), which is what the
 * model reads, the events carry and the checkpoint keeps.
 */
export async function boundResult(
  output: JsonValue,
  room: number,
  dir: string,
  callId: string,
): Promise<{ output: JsonValue; bytes: number; spilled?: SpilledOutput }> {
  const json = JSON.stringify(output) ?? 'null';
  const bytes = Buffer.byteLength(json);
  if (bytes <= room) return { output, bytes };
  const spilled = await spillText(dir, callId, json);
  return {
    output: {
      truncated: true,
      bytes,
      preview: json.slice(0, RESULT_PREVIEW_CHARS),
      artifactId: artifactIdOf(spilled),
      note: `the result was ${bytes} bytes, over the bound of ${room}: only its start is shown`,
    },
    bytes: Math.min(bytes, RESULT_PREVIEW_CHARS),
    spilled,
  };
}

type TextKind = 'text' | 'reasoning';

/**
 * The model text a turn shows (answers and reasoning, every call together) is bounded by `turnTextBytes`.
 * Past it the deltas are not emitted (no frames, no events) nor kept for the conversation (the checkpoint):
 * they stream to an overflow file per call and kind, which becomes an artifact when the call ends.
 */
export class TurnTextBound {
  private used = 0;
  private spilled = 0;
  private warned = false;

  constructor(
    private readonly bound: number,
    private readonly dir: string,
    /** Told once per turn, when the bound is first passed. */
    private readonly onLimit: (bound: number) => void,
  ) {}

  /**
   * The bound for one model call; `callId` names its overflow files, which hold at most `overflowBytes` for the
   * whole turn (past it the call must stop: see CallTextBound.overflowed).
   */
  call(callId: string, overflowBytes = Number.POSITIVE_INFINITY): CallTextBound {
    return new CallTextBound(this.dir, callId, this, overflowBytes);
  }

  /** Room left in the turn's overflow files under `cap`. */
  spillRoom(cap: number): number {
    return Math.max(0, cap - this.spilled);
  }

  /** Bytes written to an overflow file. */
  spilt(bytes: number): void {
    this.spilled += bytes;
  }

  /** Takes up to `bytes` of what is left; answers how many were granted (all, or the rest of the bound). */
  take(bytes: number): number {
    const granted = Math.min(bytes, this.bound - this.used);
    this.used += granted;
    return granted;
  }

  /** Something did not fit: nothing more is shown this turn (the shown text stays a prefix). */
  exhaust(): void {
    this.used = this.bound;
    if (!this.warned) this.onLimit(this.bound);
    this.warned = true;
  }
}

export class CallTextBound {
  private readonly spools = new Map<TextKind, OutputSpool>();
  private full = false;

  constructor(
    private readonly dir: string,
    private readonly callId: string,
    private readonly turn: TurnTextBound,
    private readonly overflowBytes: number,
  ) {}

  /** The turn's text passed its bound and its overflow bound: nothing more is kept, the call must stop. */
  overflowed(): boolean {
    return this.full;
  }

  /** A text or reasoning delta cut to what may be shown (null: none of it), any other part as it is. */
  pass<P extends { type: string }>(part: P): P | null {
    const kind: TextKind | null =
      part.type === 'text-delta' ? 'text' : part.type === 'reasoning-delta' ? 'reasoning' : null;
    if (kind === null) return part;
    const text = (part as unknown as { text: string }).text;
    if (text === '') return part;
    const data = Buffer.from(text, 'utf8');
    let cut = this.turn.take(data.byteLength);
    if (cut === data.byteLength) return part;
    // Cut at a character: never half a UTF-8 sequence shown and its other half in the file.
    while (cut > 0 && ((data[cut] as number) & 0xc0) === 0x80) cut--;
    this.turn.exhaust();
    this.spill(kind, data.subarray(cut));
    return cut === 0 ? null : { ...part, text: data.subarray(0, cut).toString('utf8') };
  }

  /** Text past the shown bound to the call's overflow file of its kind, as far as the overflow bound lets. */
  private spill(kind: TextKind, rest: Buffer): void {
    let room = Math.min(rest.byteLength, this.turn.spillRoom(this.overflowBytes));
    if (room < rest.byteLength) {
      this.full = true;
      while (room > 0 && ((rest[room] as number) & 0xc0) === 0x80) room--;
    }
    if (room === 0) return;
    let spool = this.spools.get(kind);
    if (!spool) {
      // Bound 0: a plain writer, everything it takes goes to the file.
      spool = new OutputSpool(this.dir, `${this.callId}-${kind}`, 0, false);
      this.spools.set(kind, spool);
    }
    this.turn.spilt(room);
    spool.take(rest.subarray(0, room), () => true);
  }

  /** An overflow file has more buffered than it wants: wait for drained() before reading on. */
  busy(): boolean {
    for (const spool of this.spools.values()) if (spool.busy()) return true;
    return false;
  }

  /** Waits while an overflow file catches up (the model stream is read no faster than the disk writes). */
  async drained(): Promise<void> {
    for (const spool of this.spools.values()) if (spool.busy()) await spool.drained();
  }

  /** The overflow files of the call (none when it stayed under the bound). */
  async close(): Promise<{ kind: TextKind; spilled: SpilledOutput }[]> {
    const out: { kind: TextKind; spilled: SpilledOutput }[] = [];
    for (const [kind, spool] of this.spools) {
      const spilled = await spool.close();
      if (spilled) out.push({ kind, spilled });
    }
    return out;
  }
}

/**
 * One model call's streamed tool-call input against `toolInputBytes` (every tool call of the call together, so
 * many calls each under the bound do not add up to more).
 */
export class CallToolInputBound {
  private bytes = 0;

  constructor(readonly bound: number) {}

  /** Counts a tool-input delta: false when it passes the bound (it is not taken; the call must stop). */
  take(part: { type: string; delta?: unknown }): boolean {
    if (part.type !== 'tool-input-delta' || typeof part.delta !== 'string') return true;
    this.bytes += Buffer.byteLength(part.delta, 'utf8');
    return this.bytes <= this.bound;
  }
}
