import type { JsonValue } from '@agentlane/contract';
import { type NativeFrameRecord, SecretRedactor, type Translator } from '@agentlane/engine-kit';
import { MAX_FRAME_DEPTH, nestedDeeperThan, RunTranslation } from '@agentlane/lane';
import type { Command } from 'commander';
import { CliError, printable } from '../cli-error.js';
import { createProgress } from '../progress.js';
import { readLines } from '../read-lines.js';

/** Skipped lines named one by one; past them only their count is said. */
const MAX_SKIP_LINES = 100;

import { configuredSecrets } from '../secrets.js';
import type { CliCommand } from './command.js';

interface TranslateFlags {
  engine: string;
  runId: string;
  threadId: string;
  latest?: boolean;
  /** The config file whose engines' keys and tokens are redacted (else AGENTLANE_CONFIG), as serve reads it. */
  config?: string;
}

function isTranslator(value: unknown): value is Translator {
  const t = value as Partial<Translator> | null;
  return (
    typeof t === 'object' &&
    t !== null &&
    typeof t.translate === 'function' &&
    typeof t.initialState === 'function' &&
    typeof t.finish === 'function'
  );
}

/**
 * The translator of an engine type. Adapters are packages named `@agentlane/adapter-<type>` that export
 * their translator, so no engine is named here; the one whose provider is the type wins.
 */
async function loadTranslator(engine: string): Promise<Translator> {
  if (!/^[a-z0-9-]+$/.test(engine)) throw new CliError(`--engine: "${engine}" is not an adapter name`);
  let mod: Record<string, unknown>;
  try {
    mod = (await import(`@agentlane/adapter-${engine}`)) as Record<string, unknown>;
  } catch (err) {
    throw new CliError(
      `--engine: no adapter @agentlane/adapter-${engine} (${(err as Error).message.split('\n')[0]})`,
    );
  }
  const translators = Object.values(mod).filter(isTranslator);
  const translator = translators.find((t) => t.provider === engine) ?? translators[0];
  if (!translator) throw new CliError(`--engine: @agentlane/adapter-${engine} exports no translator`);
  return translator;
}

/**
 * One line of a trace: a stored record `{nativeSeq, receivedAt, frame}`, a recorded wire line with a
 * millisecond offset `t`, or a bare frame. Arrival times are synthesized when the trace has none.
 */
function toRecord(value: JsonValue, index: number, runId: string): NativeFrameRecord {
  const base = Date.UTC(2026, 0, 1);
  const o = typeof value === 'object' && value !== null && !Array.isArray(value) ? value : null;
  if (o && 'frame' in o && typeof o.receivedAt === 'string') {
    return { runId, nativeSeq: index + 1, receivedAt: o.receivedAt, frame: o.frame as JsonValue };
  }
  const offset = o && typeof o.t === 'number' ? o.t : (index + 1) * 10;
  return { runId, nativeSeq: index + 1, receivedAt: new Date(base + offset).toISOString(), frame: value };
}

type Emitted = ReturnType<RunTranslation['push']>['events'][number];

/**
 * Where the events go: straight to `out` as they are produced, or, with `--latest`, into a map by event id
 * (a later revision replaces an earlier one in its first position) printed at the end. Only that map grows
 * with the trace, and only by distinct events.
 */
function eventSink(out: (line: string) => void, latest: boolean) {
  const print = ({ event, namespace }: Emitted) =>
    out(JSON.stringify(namespace ? { ...event, namespace } : event));
  const kept = latest ? new Map<string, Emitted>() : undefined;
  let printed = 0;
  return {
    add(events: readonly Emitted[]) {
      for (const e of events) {
        if (kept) kept.set(e.event.eventId, e);
        else {
          print(e);
          printed++;
        }
      }
    },
    /** Prints what was kept back; the number of events printed in all. */
    end(): number {
      if (!kept) return printed;
      for (const e of kept.values()) print(e);
      return kept.size;
    },
  };
}

/**
 * Translates a recorded trace and writes its canonical events as JSONL. Bad lines are reported on stderr.
 * Streams: one line is read, translated and its events written before the next, so a trace of gigabytes
 * needs the memory of its largest line and the translator's state, not of the file and all its events.
 * The secrets serve would know here (configuredSecrets: `env`, the config file) are redacted as the lane
 * redacts them: from each frame before it is translated (the values only), then from the events (values and
 * header-shaped credentials, a key or header split across two frames included, joined whole by the translator
 * or streamed in pieces). Only the events are printed: a frame's header redacted on its own would lose the
 * first half of a value split across two frames and leave the second as plain text for the events' redaction.
 */
export async function translateTrace(
  file: string,
  flags: TranslateFlags,
  out: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
  err: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const translator = await loadTranslator(flags.engine);
  const secrets = await configuredSecrets({ ...(flags.config ? { config: flags.config } : {}), env });
  const values = new SecretRedactor(secrets, { headers: false });
  const redactor = new SecretRedactor(secrets);
  const run = new RunTranslation(
    translator,
    { threadId: flags.threadId, runId: flags.runId, turnId: flags.runId, provider: translator.provider },
    { redactor },
  );
  const sink = eventSink(out, flags.latest === true);
  // A large trace takes a while: progress on stderr (throttled), the events on stdout.
  const progress = createProgress('agentlane translate', 'frames', { write: err });
  let frames = 0;
  let lineNo = 0;
  let lastTs: string | undefined;
  // Skipped lines are named one by one up to a bound, then counted: 3 MB of random bytes printed 11,603 lines.
  let skipped = 0;
  const skip = (why: string) => {
    skipped++;
    if (skipped <= MAX_SKIP_LINES) err(`${printable(file)}:${lineNo}: ${why}, skipped`);
  };
  for await (const line of readLines(file)) {
    lineNo++;
    if (line.trim().length === 0) continue;
    let frame: JsonValue;
    try {
      frame = JSON.parse(line) as JsonValue;
    } catch {
      skip('not JSON');
      continue;
    }
    const record = toRecord(frame, frames, flags.runId);
    if (nestedDeeperThan(record.frame, MAX_FRAME_DEPTH)) {
      skip(`frame nested deeper than ${MAX_FRAME_DEPTH} levels`);
      continue;
    }
    const { events } = run.push({ ...record, frame: values.json(record.frame) });
    frames++;
    lastTs = events.at(-1)?.event.ts ?? lastTs;
    sink.add(events);
    progress.update(frames);
  }
  if (skipped > MAX_SKIP_LINES)
    err(`${printable(file)}: ${skipped - MAX_SKIP_LINES} more lines skipped (${skipped} in all)`);
  progress.finish(`${frames.toLocaleString('en-US')} frames translated`);
  sink.add(run.finish(lastTs ?? new Date(0).toISOString()).events);
  return sink.end();
}

/** `agentlane translate --engine acp FILE.jsonl`: the canonical events of a recorded trace, as JSONL. */
export const translateCommand: CliCommand = {
  name: 'translate',
  register(program: Command) {
    program
      .command('translate')
      .argument('<file>', 'a recorded native trace, one JSON frame per line')
      .description('print the canonical events of a recorded engine trace as JSONL')
      .requiredOption('--engine <type>', 'the adapter that reads the trace (e.g. acp, opencode)')
      .option('--run-id <id>', 'run id for the envelopes', 'run_translate')
      .option('--thread-id <id>', 'thread id for the envelopes', 'thr_translate')
      .option('--latest', 'print only the latest revision of each event')
      .option(
        '--config <file>',
        "config file whose engines' keys and tokens are redacted, as serve would (env AGENTLANE_CONFIG)",
      )
      .action(async (file: string, flags: TranslateFlags) => {
        await translateTrace(file, flags);
      });
  },
};
