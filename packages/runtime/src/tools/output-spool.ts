import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import type { TerminalStream } from '@agentlane/contract';

/** Where a command's output past the bound went: the file, its size and sha256 (the tool result names it). */
export type SpilledOutput = {
  path: string;
  bytes: number;
  sha256: string;
  /** Bytes that were shown as terminal.output before the bound. */
  shownBytes: number;
  /** Bytes past the file's own bound that were dropped (the file says where); absent when none were. */
  droppedBytes?: number;
};

/**
 * What the text a spool writes goes through (a command's: its terminal's redaction, TerminalRedaction.file):
 * push() gives the text to write for a piece of one stream's output (possibly holding back a tail that may
 * start a secret), end() what is still held once the output ended.
 */
export interface SpoolRedaction {
  push(stream: TerminalStream, text: string): string;
  end(): string;
}

/** What a capped file keeps of the end of the output (the last lines are where errors are). */
const TAIL_BYTES = 64 * 1024;

/**
 * A command's output: the first `bound` bytes are shown (terminal.output), the rest is streamed to a file
 * (never held in memory; the writer's backpressure pauses the command's pipes), hashed as it goes. The file
 * itself is bounded by `fileBound` (a command printing without end must not fill the disk, nor the store the
 * file becomes an artifact in): it keeps the head of what passed the terminal bound and the last 64 KiB, with
 * a line saying how many bytes were dropped between them. With a `redaction`, what goes to the file is the
 * output's text redacted by it (sizes, bounds and the hash are of what is written).
 */
export class OutputSpool {
  private shownBytes = 0;
  private file: WriteStream | null = null;
  private path = '';
  private spilled = 0;
  private readonly hash = createHash('sha256');
  private full = false;
  private failed: Error | null = null;
  /** Past the file's head: the last bytes (at most `tailBound`), and how many went neither to the file nor here. */
  private tail: Buffer[] = [];
  private tailBytes = 0;
  private dropped = 0;
  private readonly tailBound: number;
  /** The UTF-8 decoder of each stream's bytes (a character may be split between two reads). */
  private readonly decoders = new Map<TerminalStream, StringDecoder>();

  constructor(
    private readonly dir: string,
    private readonly callId: string,
    private bound: number,
    /** Shows a line naming the file when output first passes the bound (a command's terminal: yes). */
    private readonly note = true,
    /** The file's bound (default none: the turn's model text is bounded by its calls' timeouts). */
    private readonly fileBound = Number.POSITIVE_INFINITY,
    private readonly redaction?: SpoolRedaction,
  ) {
    this.tailBound = Math.min(TAIL_BYTES, Math.floor(fileBound / 2));
  }

  /**
   * Shows what fits under the bound through `show`, spools the rest; returns the bytes shown. `show` answers
   * false when the turn's own bound is reached: from then on everything goes to the file. `stream`: which of
   * the output's streams `data` is of (its redaction's).
   */
  take(data: Buffer, show: (chunk: string) => boolean, stream: TerminalStream = 'stdout'): Buffer {
    let room = Math.max(0, this.bound - this.shownBytes);
    // Cut at a character: never half a UTF-8 sequence shown and its other half in the file.
    if (room < data.length) while (room > 0 && ((data[room] as number) & 0xc0) === 0x80) room--;
    let shown = data.subarray(0, room);
    if (shown.length > 0 && !show(shown.toString('utf8'))) {
      this.bound = this.shownBytes;
      shown = data.subarray(0, 0);
    }
    const rest = data.subarray(shown.length);
    this.shownBytes += shown.length;
    // Once something went to the file, everything after it does too (the shown part stays a prefix).
    if (rest.length > 0) this.bound = this.shownBytes;
    if (rest.length > 0) {
      // Redacted before the line naming the file is shown: the stream's held tail goes on into the file.
      const written = this.redacted(rest, stream);
      if (!this.file) {
        mkdirSync(this.dir, { recursive: true, mode: 0o700 });
        this.path = join(this.dir, `${this.callId.replace(/[^A-Za-z0-9_-]/g, '_')}-${randomUUID()}.log`);
        this.file = createWriteStream(this.path, { mode: 0o600 });
        // A full disk must not crash the process: the file is given up, what was shown stays shown.
        this.file.on('error', (err) => {
          this.failed = err;
          this.full = false;
        });
        if (this.note)
          show(`\n[output past ${this.shownBytes} bytes is written to ${this.path}, not shown]\n`);
      }
      this.spool(this.file, written);
    }
    return shown;
  }

  /** Bytes past the bound as they are written: through the redaction when there is one. */
  private redacted(rest: Buffer, stream: TerminalStream): Buffer {
    if (!this.redaction) return rest;
    let decoder = this.decoders.get(stream);
    if (!decoder) {
      decoder = new StringDecoder('utf8');
      this.decoders.set(stream, decoder);
    }
    return Buffer.from(this.redaction.push(stream, decoder.write(rest)), 'utf8');
  }

  /** Into the file as far as its head goes (stdout and stderr share it, in the order they came), then the tail. */
  private spool(file: WriteStream, data: Buffer): void {
    const head = data.subarray(0, Math.max(0, this.fileBound - this.tailBound - this.spilled));
    this.spilled += head.length;
    this.hash.update(head);
    if (!this.failed && head.length > 0) this.full = !file.write(head);
    if (head.length < data.length) this.keepTail(data.subarray(head.length));
  }

  /** Output past the file's head: only its last tailBound bytes are kept (in memory, bounded), the rest counted. */
  private keepTail(data: Buffer): void {
    this.tail.push(Buffer.from(data));
    this.tailBytes += data.length;
    while (this.tailBytes > this.tailBound) {
      const first = this.tail[0] as Buffer;
      const over = this.tailBytes - this.tailBound;
      if (first.length <= over) this.tail.shift();
      else this.tail[0] = first.subarray(over);
      const cut = Math.min(first.length, over);
      this.tailBytes -= cut;
      this.dropped += cut;
    }
  }

  /** The dropped-bytes line and the tail, at the end of a capped file. */
  private writeTail(file: WriteStream): void {
    if (this.dropped === 0 && this.tailBytes === 0) return;
    let tail = Buffer.concat(this.tail);
    // Start the tail at a character (the bytes cut off count as dropped).
    let skip = 0;
    while (skip < tail.length && ((tail[skip] as number) & 0xc0) === 0x80) skip++;
    this.dropped += skip;
    tail = tail.subarray(skip);
    const line = Buffer.from(
      `\n[agentlane: ${this.dropped} bytes of output dropped here; this file keeps the first ${this.spilled} ` +
        `and the last ${tail.length} bytes]\n`,
    );
    for (const part of [line, tail]) {
      this.spilled += part.length;
      this.hash.update(part);
      file.write(part);
    }
    this.tail = [];
    this.tailBytes = 0;
  }

  busy(): boolean {
    return this.full;
  }

  drained(): Promise<void> {
    const file = this.file;
    if (!file || !this.full) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.full = false;
        file.off('drain', done);
        file.off('error', done);
        resolve();
      };
      file.once('drain', done);
      file.once('error', done);
    });
  }

  /** The file's name, size and sha256; null when nothing passed the bound or the file could not be written. */
  async close(): Promise<SpilledOutput | null> {
    const file = this.file;
    if (!file || this.failed) return null;
    if (this.redaction) {
      // What the decoders and the redaction still hold ends the file's text.
      let held = '';
      for (const [stream, decoder] of this.decoders) held += this.redaction.push(stream, decoder.end());
      this.spool(file, Buffer.from(held + this.redaction.end(), 'utf8'));
    }
    this.writeTail(file);
    await new Promise<void>((resolve) => {
      file.once('error', () => resolve());
      file.end(() => resolve());
    });
    if (this.failed) return null;
    return {
      path: this.path,
      bytes: this.spilled,
      sha256: this.hash.digest('hex'),
      shownBytes: this.shownBytes,
      ...(this.dropped > 0 ? { droppedBytes: this.dropped } : {}),
    };
  }
}
