import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { Command } from 'commander';
import { CliError } from '../cli-error.js';
import { resolveServeConfig, type ServeConfig, type ServeFlags } from '../config.js';
import { probeDriver } from '../engine-probe.js';
import { createEngineDriver, discoverEngines, disposeDrivers, type EngineOffer } from '../engine-registry.js';
import { serverRedactor } from '../secrets.js';
import { workFolderProblems } from '../work-folders.js';
import type { CliCommand } from './command.js';
import { openDatabase } from './serve.js';

/** One finding: a check that passed, or a problem with the fix, each printed on one line. */
export type Finding = { ok: true; what: string } | { ok: false; what: string; problem: string; fix: string };

const reason = (err: unknown) => (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';

async function checkEngine(
  offer: EngineOffer,
  config: ServeConfig,
  fix: string,
  timeoutMs: number,
): Promise<Finding> {
  const what = `engine ${offer.entry.name}`;
  try {
    const driver = await createEngineDriver(offer.entry, what, {
      database: config.db,
      ...(offer.inMemory ? { inMemory: offer.inMemory } : {}),
    });
    try {
      await probeDriver(driver, timeoutMs);
    } finally {
      await disposeDrivers([driver]);
    }
    return { ok: true, what: `${what} starts, negotiates and stops (${offer.why})` };
  } catch (err) {
    return { ok: false, what, problem: reason(err), fix };
  }
}

function checkPort(host: string, port: number): Promise<Finding> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (err: NodeJS.ErrnoException) => {
      const problem =
        err.code === 'EADDRINUSE'
          ? `port ${port} on ${host} is in use`
          : `cannot listen on ${host}:${port} (${err.code ?? err.message})`;
      resolve({ ok: false, what: 'port', problem, fix: 'stop what holds it, or pick another with --port' });
    });
    server.listen(port, host, () =>
      server.close(() => resolve({ ok: true, what: `port ${port} on ${host} is free` })),
    );
  });
}

/**
 * Everything `agentlane serve` needs, checked in the order it needs it: the config, the work folder and
 * workspace root, each engine (started, negotiated and stopped), the database, the port and the web build.
 * `progress` hears each step as it starts (engines can take seconds); the findings come back in order.
 */
export async function runDoctor(
  flags: ServeFlags,
  options: {
    env?: NodeJS.ProcessEnv;
    /** Where to look for engines installed in the project (`node_modules/.bin`); the working directory. */
    cwd?: string;
    progress?: (line: string) => void;
    timeoutMs?: number;
  } = {},
): Promise<Finding[]> {
  const env = options.env ?? process.env;
  const progress = options.progress ?? (() => {});
  const findings: Finding[] = [];
  let config: ServeConfig;
  try {
    config = resolveServeConfig(flags, env);
  } catch (err) {
    const fix = 'correct the file or the flag it names';
    return [{ ok: false, what: 'config', problem: reason(err), fix }];
  }
  findings.push({
    ok: true,
    what: config.configPath
      ? `config ${config.configPath} is valid`
      : 'no config file (engines are found here)',
  });
  const folders = workFolderProblems(config);
  findings.push(...folders.map((f) => ({ ok: false as const, ...f })));
  if (folders.length === 0) findings.push({ ok: true, what: `work folder ${config.workDir} exists` });
  const timeoutMs = options.timeoutMs ?? 30_000;
  const configured: EngineOffer[] = config.engines.map((entry) => ({ entry, why: 'configured', env: [] }));
  const found = config.discover ? await discoverEngines(env, options.cwd ?? process.cwd()) : [];
  for (const offer of configured) {
    progress(`checking engine ${offer.entry.name}…`);
    const fix = `correct engine "${offer.entry.name}" in ${config.configPath} (its command or entry, model URL, key variable)`;
    findings.push(await checkEngine(offer, config, fix, timeoutMs));
  }
  for (const offer of found) {
    if (config.engines.some((e) => e.name === offer.entry.name)) continue;
    progress(`checking engine ${offer.entry.name} (${offer.why})…`);
    const fix = `check ${offer.env.join(', ') || 'its installation'}, or configure it in a config file (agentlane init)`;
    findings.push(await checkEngine(offer, config, fix, timeoutMs));
  }
  if (configured.length + found.length === 0)
    findings.push({
      ok: false,
      what: 'engines',
      problem: 'no engine besides the replays',
      fix: 'set OPENAI_API_KEY, ANTHROPIC_API_KEY or GEMINI_API_KEY, or configure engines (agentlane init)',
    });

  progress('checking the database…');
  try {
    const store = await openDatabase(config);
    await store.close();
    findings.push({ ok: true, what: `database ${store.backend} opens and is migrated` });
  } catch (err) {
    const fix = /^postgres/i.test(config.db)
      ? 'start PostgreSQL or correct --db / AGENTLANE_DB'
      : 'make the folder writable or pick another with --db / --data-dir';
    findings.push({ ok: false, what: 'database', problem: reason(err), fix });
  }

  progress('checking the port…');
  findings.push(await checkPort(config.host, config.port));

  if (existsSync(join(config.webRoot, 'index.html')))
    findings.push({ ok: true, what: `web UI built in ${config.webRoot}` });
  else
    findings.push({
      ok: false,
      what: 'web UI',
      problem: `not built (no ${join(config.webRoot, 'index.html')}); the API works without it`,
      fix: 'run npm start once (it builds it), or npm run build -w @agentlane/web',
    });
  // A problem may quote an engine's stderr or error body: the keys it was given never reach the output.
  const redactor = serverRedactor({ env, engines: config.engines, offers: found, tokens: config.tokens });
  return findings.map((f) =>
    f.ok
      ? { ...f, what: redactor.text(f.what) }
      : { ...f, what: redactor.text(f.what), problem: redactor.text(f.problem), fix: redactor.text(f.fix) },
  );
}

export const formatFinding = (f: Finding): string =>
  f.ok ? `ok       ${f.what}` : `problem  ${f.what}: ${f.problem} — fix: ${f.fix}`;

export const doctorCommand: CliCommand = {
  name: 'doctor',
  register(program: Command) {
    program
      .command('doctor')
      .description(
        'check what agentlane serve needs: the config, the work folders, each engine (start, negotiate, stop), the database, the port, the web build; one line per problem with the fix (exit 1 when any)',
      )
      .option(
        '--config <file>',
        'JSON config file (env AGENTLANE_CONFIG); none: check the engines found here',
      )
      .option('--db <path|url>', 'SQLite file or postgres://… URL (env AGENTLANE_DB)')
      .option('--data-dir <dir>', 'folder for the SQLite database (env AGENTLANE_DATA_DIR, default ./.data)')
      .option('--host <host>', 'address serve would bind (env AGENTLANE_HOST)')
      .option('--port <port>', 'port serve would listen on (env AGENTLANE_PORT, default 7433)')
      .option('--web-root <dir>', 'built web UI (env AGENTLANE_WEB_ROOT, default packages/web/dist)')
      .action(async (flags: ServeFlags) => {
        const findings = await runDoctor(flags, { progress: (line) => console.log(line) });
        for (const f of findings) console.log(formatFinding(f));
        const problems = findings.filter((f) => !f.ok).length;
        console.log(
          problems === 0 ? 'everything agentlane serve needs is in place' : `${problems} problem(s)`,
        );
        if (problems > 0) throw new CliError(`doctor found ${problems} problem(s)`, 1);
      });
  },
};
