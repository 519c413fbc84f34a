import { createReadStream } from 'node:fs';
import { CliError } from './cli-error.js';

/**
 * The lines of a UTF-8 file, one at a time, without their '\n' (a final line without one included, an empty
 * trailing one not): memory holds the current chunk and line, never the file. A line that spans chunks is
 * kept as pieces and joined once, so a single huge line costs its own size, not a rescan per chunk.
 * Reading errors (missing file, a folder) become a CliError naming the file.
 */
export async function* readLines(file: string): AsyncGenerator<string> {
  const pieces: string[] = [];
  try {
    for await (const chunk of createReadStream(file, { encoding: 'utf8' }) as AsyncIterable<string>) {
      let start = 0;
      for (let nl = chunk.indexOf('\n'); nl !== -1; nl = chunk.indexOf('\n', start)) {
        pieces.push(chunk.slice(start, nl));
        const line = pieces.join('');
        pieces.length = 0;
        start = nl + 1;
        yield line;
      }
      if (start < chunk.length) pieces.push(chunk.slice(start));
    }
  } catch (e) {
    throw new CliError(`cannot read ${file} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  if (pieces.length > 0) yield pieces.join('');
}
