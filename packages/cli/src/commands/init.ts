import { existsSync, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import { CliError } from '../cli-error.js';
import { DEFAULT_PORT } from '../config.js';
import { probeDriver } from '../engine-probe.js';
import { createEngineDriver, discoverEngines, disposeDrivers, type EngineOffer } from '../engine-registry.js';
import type { CliCommand } from './command.js';

const reason = (err: unknown) => (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';

/** Node's "EISDIR: illegal operation on a directory, open '/x'" without the path, which the caller names. */
const errnoReason = (err: unknown) => reason(err).split(', ')[0] ?? '';

/**
 * Refuses an output path that cannot be a file before the engines are probed (which takes seconds): a folder,
 * or a file in a folder that does not exist. Other failures (a full disk, /dev/full) show up at the write.
 */
function checkOutputPath(path: string): void {
  const folder = dirname(path);
  if (!existsSync(folder)) throw new CliError(`cannot write ${path} (the folder ${folder} does not exist)`);
  if (!statSync(folder).isDirectory()) throw new CliError(`cannot write ${path} (${folder} is not a folder)`);
  if (existsSync(path) && statSync(path).isDirectory())
    throw new CliError(`cannot write ${path} (it is a folder; name a file)`);
}

function writeConfig(path: string, text: string): void {
  try {
    writeFileSync(path, text);
  } catch (err) {
    throw new CliError(`cannot write ${path} (${errnoReason(err)})`);
  }
}

/** Indents a JSON value's lines after the first, so it nests inside the written file. */
const nested = (value: unknown, indent: string) =>
  JSON.stringify(value, null, 2).split('\n').join(`\n${indent}`);

/**
 * The config file text (JSON with comments, which `agentlane serve --config` reads) for what was found:
 * each working engine with a comment saying what it is, why it was found and which variables it needs (never
 * their values); each engine that did not start as a comment with the reason.
 */
export function renderConfig(
  working: readonly EngineOffer[],
  failed: readonly { offer: EngineOffer; reason: string }[],
  now = new Date(),
): string {
  const lines = [
    `// agentlane config, written by \`agentlane init\` on ${now.toISOString().slice(0, 10)} from what it found here.`,
    '// Check it with `agentlane doctor --config <this file>`; run it with `agentlane serve --config <this file>`.',
    '// Keys stay in the environment: no entry holds one.',
    '{',
    '  // "host": "127.0.0.1",  // anything but loopback needs "tokens"',
    `  // "port": ${DEFAULT_PORT},`,
    '  // "db": "postgres://user@127.0.0.1:5432/agentlane",  // default: SQLite in ./.data',
    '  // "tokens": [{ "token": "a long random string", "threads": "*", "name": "me" }],',
    '  // "logLevel": "info",',
    '  "engines": [',
  ];
  for (const offer of working) {
    const { label } = offer.entry as { label?: string };
    lines.push(`    // ${label ?? offer.entry.name}: found because ${offer.why}.`);
    if (offer.env.length > 0) lines.push(`    // Needs at run time: ${offer.env.join(', ')}.`);
    for (const note of offer.notes ?? []) lines.push(`    // Note: ${note}.`);
    lines.push(`    ${nested(offer.entry, '    ')},`);
  }
  for (const { offer, reason } of failed)
    lines.push(`    // Not written: ${offer.entry.name} (${offer.why}) did not start: ${reason}`);
  if (working.length === 0 && failed.length === 0)
    lines.push(
      '    // None found: set OPENAI_API_KEY, ANTHROPIC_API_KEY or GEMINI_API_KEY and run init again.',
    );
  lines.push(
    '  ],',
    '  // The bundled replays of recorded engine sessions, offered beside the engines.',
    '  "recordedSessions": true',
    '}',
    '',
  );
  return lines.join('\n');
}

/** Finds the engines, starts each once, and writes the config of those that started. */
export async function runInit(options: {
  output: string;
  force?: boolean;
  env?: NodeJS.ProcessEnv;
  /** Where to look for engines installed in the project (`node_modules/.bin`); the working directory. */
  cwd?: string;
  timeoutMs?: number;
  progress?: (line: string) => void;
}): Promise<{ path: string; written: string[]; failed: string[] }> {
  const path = resolve(options.output);
  if (existsSync(path) && !options.force)
    throw new CliError(`${path} exists already (pass --force to replace it)`);
  checkOutputPath(path);
  const progress = options.progress ?? (() => {});
  progress('agentlane: looking for engines (provider keys, agents on PATH and in node_modules)…');
  const offers = await discoverEngines(options.env ?? process.env, options.cwd ?? process.cwd());
  const working: EngineOffer[] = [];
  const failed: { offer: EngineOffer; reason: string }[] = [];
  for (const offer of offers) {
    progress(`agentlane: checking engine ${offer.entry.name} (${offer.why})…`);
    try {
      const driver = await createEngineDriver(offer.entry, `engine ${offer.entry.name}`, {
        ...(offer.inMemory ? { inMemory: offer.inMemory } : {}),
      });
      try {
        await probeDriver(driver, options.timeoutMs ?? 30_000);
      } finally {
        await disposeDrivers([driver]);
      }
      working.push(offer);
    } catch (err) {
      failed.push({ offer, reason: reason(err) });
    }
  }
  writeConfig(path, renderConfig(working, failed));
  return { path, written: working.map((o) => o.entry.name), failed: failed.map((f) => f.offer.entry.name) };
}

export const initCommand: CliCommand = {
  name: 'init',
  register(program: Command) {
    program
      .command('init')
      .description(
        'write a commented config file of the engines found here (provider keys, ACP agents, OpenCode), each started once first',
      )
      .option('-o, --output <file>', 'where to write it', 'agentlane.json')
      .option('--force', 'replace an existing file')
      .action(async (flags: { output: string; force?: boolean }) => {
        const result = await runInit({ ...flags, progress: (line) => console.log(line) });
        console.log(
          `agentlane: wrote ${result.path} (${result.written.length} engine(s)${result.failed.length ? `; not written: ${result.failed.join(', ')}` : ''})`,
        );
      });
  },
};
