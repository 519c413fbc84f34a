import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { join } from 'node:path';

/** Where a command's output past the bound went: the file, its size and sha256 (the tool result names it). */
export type SpilledOutput = {
  path: string;
  bytes: number;
  sha256: string;
  /** Bytes that were shown as terminal.output before the bound. */
  shownBytes: number;
};

/**
 * A command's output: the first `bound` bytes are shown (terminal.output), the rest is streamed to a file
 * (never held in memory; the writer's backpressure pauses the command's pipes), hashed as it goes.
 */
export class OutputSpool {
  private shownBytes = 0;
  private file: WriteStream | null = null;
  private path = '';
  private spilled = 0;
  private readonly hash = createHash('sha256');
  private full = false;
  private failed: Error | null = null;

  constructor(
    private readonly dir: string,
    private readonly callId: string,
    private bound: number,
    /** Shows a line naming the file when output first passes the bound (a command's terminal: yes). */
    private readonly note = true,
  ) {}

  /**
   * Shows what fits under the bound through `show`, spools the rest; returns the bytes shown. `show` answers
   * false when the turn's own bound is reached: from then on everything goes to the file.
   */
  take(data: Buffer, show: (chunk: string) => boolean): Buffer {
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
      this.spilled += rest.length;
      this.hash.update(rest);
      // stdout and stderr past the bound share the file, in the order they came.
      if (!this.failed) this.full = !this.file.write(rest);
    }
    return shown;
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
    };
  }
}
