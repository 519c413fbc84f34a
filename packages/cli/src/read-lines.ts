import { createReadStream } from 'node:fs';
import { CliError } from './cli-error.js';

/**
 * The lines of a UTF-8 file, one at a time, without their '\n' (a final line without one included, an empty
 * trailing one not): memory holds the current chunk and line, never the file. A line that spans chunks is
 * kept as pieces and joined once, so a single huge line costs its own size, not a rescan per chunk.
 * Reading errors (missing file, a folder) become a CliError naming the file.
 */
export async function* readLines(file: string, maxLineChars = MAX_LINE_CHARS): AsyncGenerator<string> {
  const pieces: string[] = [];
  let pending = 0;
  let lineNo = 0;
  // A line past the bound is no frame (/dev/zero has no newline at all, and held the whole stream until V8 ran
  // out of memory): reading stops there with one line saying where.
  const tooLong = () =>
    new CliError(
      `${file}: line ${lineNo + 1} is longer than ${maxLineChars} characters; not a trace (stopped)`,
    );
  try {
    for await (const chunk of createReadStream(file, { encoding: 'utf8' }) as AsyncIterable<string>) {
      let start = 0;
      for (let nl = chunk.indexOf('\n'); nl !== -1; nl = chunk.indexOf('\n', start)) {
        if (pending + nl - start > maxLineChars) throw tooLong();
        pieces.push(chunk.slice(start, nl));
        const line = pieces.join('');
        pieces.length = 0;
        pending = 0;
        start = nl + 1;
        lineNo++;
        yield line;
      }
      if (start < chunk.length) {
        pending += chunk.length - start;
        if (pending > maxLineChars) throw tooLong();
        pieces.push(chunk.slice(start));
      }
    }
  } catch (e) {
    if (e instanceof CliError) throw e;
    throw new CliError(`cannot read ${file} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  if (pieces.length > 0) yield pieces.join('');
}

/** The longest line read (64 Mi characters): twice the largest message an ACP agent may send. */
export const MAX_LINE_CHARS = 64 * 1024 * 1024;
