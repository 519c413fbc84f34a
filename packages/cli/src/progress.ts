import { printable } from './cli-error.js';

/** A progress line writer for long commands: silent for work that ends within the first interval. */
export interface Progress {
  /** `done` items so far (of `total`, when known); prints at most once per interval. */
  update(done: number, total?: number): void;
  /** The closing line, printed only when progress was shown at all. */
  finish(summary: string): void;
}

/**
 * Progress on stderr (so stdout stays the command's output, e.g. JSONL): "agentlane translate: 120,000 of
 * 500,000 frames (24%)". Nothing is printed for work shorter than `intervalMs`, so quick commands and
 * tests stay quiet.
 */
export function createProgress(
  rawLabel: string,
  unit: string,
  options: { write?: (line: string) => void; intervalMs?: number; now?: () => number } = {},
): Progress {
  const write = options.write ?? ((line: string) => process.stderr.write(`${line}\n`));
  // The label quotes the command's arguments (a session id, a file name).
  const label = printable(rawLabel);
  const interval = options.intervalMs ?? 1000;
  const now = options.now ?? Date.now;
  let last = now();
  let shown = false;
  const n = (value: number) => value.toLocaleString('en-US');
  return {
    update(done, total) {
      const t = now();
      if (t - last < interval) return;
      last = t;
      shown = true;
      const of = total ? ` of ${n(total)} ${unit} (${Math.floor((done / total) * 100)}%)` : ` ${unit}`;
      write(`${label}: ${n(done)}${of}`);
    },
    finish(summary) {
      if (shown) write(`${label}: ${summary}`);
    },
  };
}
