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

  constructor(
    private readonly dir: string,
    private readonly callId: string,
    private bound: number,
  ) {}

  /**
   * Shows what fits under the bound through `show`, spools the rest; returns the bytes shown. `show` answers
   * false when the turn's own bound is reached: from then on everything goes to the file.
   */
  take(data: Buffer, show: (chunk: string) => boolean): Buffer {
    const room = Math.max(0, this.bound - this.shownBytes);
    let shown = data.subarray(0, room);
    if (shown.length > 0 && !show(shown.toString('utf8'))) {
      this.bound = this.shownBytes;
      shown = data.subarray(0, 0);
    }
    const rest = data.subarray(shown.length);
    this.shownBytes += shown.length;
    if (rest.length > 0) {
      if (!this.file) {
        mkdirSync(this.dir, { recursive: true, mode: 0o700 });
        this.path = join(this.dir, `${this.callId.replace(/[^A-Za-z0-9_-]/g, '_')}-${randomUUID()}.log`);
        this.file = createWriteStream(this.path, { mode: 0o600 });
        show(`\n[output past ${this.shownBytes} bytes is written to ${this.path}, not shown]\n`);
      }
      this.spilled += rest.length;
      this.hash.update(rest);
      // stdout and stderr past the bound share the file, in the order they came.
      this.full = !this.file.write(rest);
    }
    return shown;
  }

  busy(): boolean {
    return this.full;
  }

  drained(): Promise<void> {
    const file = this.file;
    if (!file || !this.full) return Promise.resolve();
    return new Promise((resolve) =>
      file.once('drain', () => {
        this.full = false;
        resolve();
      }),
    );
  }

  async close(): Promise<SpilledOutput | null> {
    const file = this.file;
    if (!file) return null;
    await new Promise<void>((resolve) => file.end(() => resolve()));
    return {
      path: this.path,
      bytes: this.spilled,
      sha256: this.hash.digest('hex'),
      shownBytes: this.shownBytes,
    };
  }
}
