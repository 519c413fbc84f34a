import type { TerminalStream } from '@agentlane/contract';
import type { SecretRedactor } from '@agentlane/engine-kit';
import type { SpoolRedaction } from './tools/output-spool.js';

/** A streaming redactor (SecretRedactor.stream()). */
type Stream = ReturnType<SecretRedactor['stream']>;

/** One terminal.output chunk, as a tool reports it (ToolContext.terminal). */
export interface TerminalChunk {
  terminalId: string;
  stream: TerminalStream;
  chunk: string;
  command?: string;
  exit?: { code: number | null; signal?: string | null };
}

/**
 * A command's output with the secrets redacted across its chunks: a command may print a key (or an
 * `Authorization:` header) in two writes, which come as two chunks, and a per-chunk redaction would leave its
 * halves in two terminal.output events, whole once joined. Each stream of each terminal (stdout, stderr: their
 * chunks interleave) has its own StreamRedactor: a chunk is emitted without the tail that may start a secret,
 * and that tail goes out with the stream's next chunk or, when the terminal exits (the chunk with `exit`) or
 * the tool call ends without that, as a chunk of its own. Its state depends only on the chunks in their order.
 * Output that goes to a file instead of chunks (file()) continues the same streams.
 */
export class TerminalRedaction {
  /** The open streams of each terminal, by its id, then by stream. */
  private readonly terminals = new Map<
    string,
    Map<TerminalStream, { stream: Stream; last: TerminalChunk }>
  >();

  constructor(private readonly redactor: SecretRedactor) {}

  /** The chunks to emit for one chunk, in order (none while its whole text is held back). */
  chunk(c: TerminalChunk): TerminalChunk[] {
    if (c.chunk === '' && c.exit === undefined) return [c];
    let streams = this.terminals.get(c.terminalId);
    if (!streams) {
      streams = new Map();
      this.terminals.set(c.terminalId, streams);
    }
    let open = streams.get(c.stream);
    if (!open) {
      open = { stream: this.redactor.stream(), last: c };
      streams.set(c.stream, open);
    }
    open.last = c;
    let text = open.stream.push(c.chunk);
    if (c.exit === undefined) return text === '' ? [] : [text === c.chunk ? c : { ...c, chunk: text }];
    // The terminal ends: its other stream's held tail goes first, then this one's, with the exit.
    text += open.stream.flush();
    streams.delete(c.stream);
    const out = this.rest(c.terminalId);
    out.push(text === c.chunk ? c : { ...c, chunk: text });
    return out;
  }

  /**
   * The text of a terminal's output that goes to a file instead of chunks (run_command's output past its
   * bound): each stream's text goes on through that stream's redaction, taken from the chunks (whose held tail
   * goes to the file before what follows it), so a key split across the bound is replaced whole in the file;
   * the terminal's later chunks of that stream (the line naming the file) start a stream of their own.
   */
  file(terminalId: string): SpoolRedaction {
    const taken = new Map<TerminalStream, Stream>();
    return {
      push: (stream, text) => {
        let open = taken.get(stream);
        if (!open) {
          const streams = this.terminals.get(terminalId);
          open = streams?.get(stream)?.stream ?? this.redactor.stream();
          streams?.delete(stream);
          taken.set(stream, open);
        }
        return open.push(text);
      },
      end: () => {
        let out = '';
        for (const open of taken.values()) out += open.flush();
        taken.clear();
        return out;
      },
    };
  }

  /** The held tails of the open streams (of one terminal, or of all), each as a chunk of its own. */
  rest(terminalId?: string): TerminalChunk[] {
    const out: TerminalChunk[] = [];
    for (const [id, streams] of this.terminals) {
      if (terminalId !== undefined && id !== terminalId) continue;
      this.terminals.delete(id);
      for (const { stream, last } of streams.values()) {
        const tail = stream.flush();
        // `last` has no exit: a chunk with one closes its stream.
        if (tail !== '') out.push({ ...last, chunk: tail });
      }
    }
    return out;
  }
}
