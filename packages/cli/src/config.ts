import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import jsonc from 'jsonc-parser';
import type { LevelWithSilent } from 'pino';
import { type Static, Type } from 'typebox';
import { Compile } from 'typebox/schema';
import { ADAPTERS, type AdapterType } from './adapters.js';
import { CliError } from './cli-error.js';
import { firstDuplicateKey, pathText } from './config-keys.js';
import { engineFieldProblem } from './engine-fields.js';
import { LOG_LEVELS, parseLogLevel } from './logging.js';
import { APPROVAL_TIMEOUT_MAX_MS, runSettings } from './run-settings.js';
import { folderSettings } from './work-folders.js';

const EngineEntry = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9_.:-]+$' }),
    // The adapters' types (one registry line each, adapters.ts) and `external`.
    type: Type.Unsafe<AdapterType | 'external'>(
      Type.Union([...Object.keys(ADAPTERS).map((type) => Type.Literal(type)), Type.Literal('external')]),
    ),
  },
  // The rest are the adapter's own options, checked by the adapter.
  { additionalProperties: true },
);

const TokenEntry = Type.Object(
  {
    // Visible ASCII only: a token of spaces or with a newline can never be sent in a header, so a server
    // configured with it alone was locked to everyone (a probe's).
    token: Type.String({ minLength: 16, pattern: '^[\\x21-\\x7e]+$' }),
    threads: Type.Union([Type.Literal('*'), Type.Array(Type.String({ minLength: 1 }))]),
    name: Type.Optional(Type.String({ minLength: 1 })),
  },
  { additionalProperties: false },
);

/**
 * The longest a timer takes (Node's setTimeout/setInterval: 2^31-1 ms, about 24.8 days): a larger value
 * fires at once with only a TimeoutOverflowWarning, so `heartbeatMs: 1e12` sent a heartbeat every ms.
 */
const MAX_TIMER_MS = 2_147_483_647;
const timerMs = (minimum: number) => Type.Optional(Type.Integer({ minimum, maximum: MAX_TIMER_MS }));
/** A byte count an allocation or a buffer can take (1 GiB). */
const MAX_BYTES = 1024 ** 3;

const LimitsEntry = Type.Object(
  {
    requestTimeoutMs: timerMs(1),
    headersTimeoutMs: timerMs(1),
    keepAliveTimeoutMs: timerMs(1),
    connectionTimeoutMs: timerMs(1),
    maxConnections: Type.Optional(Type.Integer({ minimum: 1 })),
    maxStreamsPerToken: Type.Optional(Type.Integer({ minimum: 1 })),
    maxLocalStreams: Type.Optional(Type.Integer({ minimum: 1 })),
    maxRunsPerToken: Type.Optional(Type.Integer({ minimum: 1 })),
    requestsPerSecond: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
    requestBurst: Type.Optional(Type.Integer({ minimum: 1 })),
    wrongTokensPerAddress: Type.Optional(Type.Integer({ minimum: 1 })),
    wrongTokenWindowMs: timerMs(1),
  },
  { additionalProperties: false },
);

/** The JSON config file (`--config`), every field optional. */
export const ConfigFile = Type.Object(
  {
    host: Type.Optional(Type.String({ minLength: 1 })),
    port: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535 })),
    db: Type.Optional(Type.String({ minLength: 1 })),
    dataDir: Type.Optional(Type.String({ minLength: 1 })),
    webRoot: Type.Optional(Type.String({ minLength: 1 })),
    workDir: Type.Optional(Type.String({ minLength: 1 })),
    /** No session may point outside this folder (default: workDir). */
    workspaceRoot: Type.Optional(Type.String({ minLength: 1 })),
    /** Host names accepted besides loopback ones when no tokens are configured. */
    allowedHosts: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    limits: Type.Optional(LimitsEntry),
    heartbeatMs: timerMs(100),
    maxBufferBytes: Type.Optional(Type.Integer({ minimum: 1024, maximum: MAX_BYTES })),
    bodyLimitBytes: Type.Optional(Type.Integer({ minimum: 1024, maximum: MAX_BYTES })),
    tokens: Type.Optional(Type.Array(TokenEntry)),
    engines: Type.Optional(Type.Array(EngineEntry)),
    logLevel: Type.Optional(Type.Union(LOG_LEVELS.map((l) => Type.Literal(l)))),
    /** Also offer the engines found here (keys set, agents installed); default: only without a config file. */
    discover: Type.Optional(Type.Boolean()),
    /** Also offer every bundled recorded session as a replay engine (default true). */
    recordedSessions: Type.Optional(Type.Boolean()),
    /** Runs this process executes at once (default 16, twice the per-token cap); queued runs wait for a free slot on any process. */
    maxConcurrentRuns: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
    /** How long the lease on a running run lasts (default 10000 ms): a dead process's runs settle after it. */
    runLeaseMs: Type.Optional(Type.Integer({ minimum: 200, maximum: 3_600_000 })),
    /** How often leases are renewed and expired ones reclaimed (default 2000 ms; at most half the lease). */
    runLeaseRenewMs: Type.Optional(Type.Integer({ minimum: 50, maximum: 1_800_000 })),
    /** SIGTERM waits this long for running runs, then hands them back (default 8000 ms). */
    shutdownGraceMs: Type.Optional(Type.Integer({ minimum: 0, maximum: 3_600_000 })),
    /** An approval or question unanswered this long is cancelled by system (default 900000 ms; 0: never). */
    approvalTimeoutMs: Type.Optional(Type.Integer({ minimum: 0, maximum: APPROVAL_TIMEOUT_MAX_MS })),
    /** A stopped turn is waited for this long before its engine session is closed (default 5000 ms). */
    cancelGraceMs: Type.Optional(Type.Integer({ minimum: 0, maximum: 3_600_000 })),
    /** An engine session unused this long is closed; the next run reopens it (default 600000 ms; 0: never). */
    engineIdleMs: Type.Optional(Type.Integer({ minimum: 0, maximum: 86_400_000 })),
    /** A turn whose engine emits nothing this long fails, its session closed (default 3600000 ms; 0: never). */
    turnIdleMs: Type.Optional(Type.Integer({ minimum: 0, maximum: 7 * 86_400_000 })),
  },
  { additionalProperties: false },
);
export type ConfigFile = Static<typeof ConfigFile>;
export type EngineConfig = Static<typeof EngineEntry> & Record<string, unknown>;

const checkConfig = Compile(ConfigFile);

/** What `agentlane serve` runs with, after flags > environment > config file > defaults. */
export interface ServeConfig {
  host: string;
  port: number;
  /** A SQLite path or a postgres:// URL. */
  db: string;
  dataDir: string;
  webRoot: string;
  workDir: string;
  workspaceRoot: string;
  /** Which setting named workDir and workspaceRoot (for messages); absent: the defaults. */
  folderSettings?: { workDir?: string; workspaceRoot?: string };
  allowedHosts: string[];
  limits: NonNullable<ConfigFile['limits']>;
  heartbeatMs: number;
  maxBufferBytes: number;
  bodyLimitBytes: number;
  tokens: NonNullable<ConfigFile['tokens']>;
  engines: EngineConfig[];
  recordedSessions: boolean;
  /** Offer the engines found here besides the configured ones (true without a config file). */
  discover: boolean;
  /** The config file read, if any. */
  configPath?: string;
  /** pino level of the server's log (default info). */
  logLevel: LevelWithSilent;
  maxConcurrentRuns: number;
  runLeaseMs: number;
  runLeaseRenewMs: number;
  shutdownGraceMs: number;
  /** An approval or question nobody answers within this many ms is cancelled by system; 0: never. */
  approvalTimeoutMs: number;
  /** A stopped turn is waited for this many ms before its engine session is closed. */
  cancelGraceMs: number;
  /** An engine session no run used for this many ms is closed; 0: never. */
  engineIdleMs: number;
  /** A turn whose engine emits nothing for this many ms (nobody being asked) fails; 0: never. */
  turnIdleMs: number;
}

export interface ServeFlags {
  host?: string;
  port?: string;
  db?: string;
  config?: string;
  dataDir?: string;
  webRoot?: string;
  logLevel?: string;
  maxConcurrentRuns?: string;
  runLeaseMs?: string;
  runLeaseRenewMs?: string;
  shutdownGraceMs?: string;
  approvalTimeoutMs?: string;
  cancelGraceMs?: string;
  engineIdleMs?: string;
  turnIdleMs?: string;
  workspaceRoot?: string;
}

export const DEFAULT_PORT = 7433;

/** The repository's built web UI, served at `/` when it exists. */
const DEFAULT_WEB_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../web/dist');

type SchemaError = { keyword: string; instancePath: string; params: unknown; message?: string };

/**
 * The first schema error as "where what". A value outside a set of constants (an engine's type, the log
 * level) fails once per allowed value, each saying only "must be equal to constant": those are gathered
 * into the list of what is allowed.
 */
function describeSchemaError(errors: readonly SchemaError[]): string {
  const first = errors.find((e) => e.keyword !== 'boolean') ?? errors[0];
  const where = first?.instancePath ? first.instancePath.slice(1).replace(/\//g, '.') : '(root)';
  const extra = (first?.params as { additionalProperties?: string[] } | undefined)?.additionalProperties;
  if (extra) return `${where} has an unknown field "${extra[0]}"`;
  const allowed = errors
    .filter((e) => e.keyword === 'const' && e.instancePath === first?.instancePath)
    .map((e) => JSON.stringify((e.params as { allowedValue?: unknown }).allowedValue));
  if (first?.keyword === 'const' && allowed.length > 1)
    return `${where} must be one of ${allowed.join(', ')}`;
  return `${where} ${first?.message ?? 'is invalid'}`;
}

/** A config file is small: a FIFO, /dev/zero or a multi-GB file is refused before it is read. */
const MAX_CONFIG_BYTES = 4 * 1024 * 1024;

export function readConfigFile(path: string): ConfigFile {
  if (!existsSync(path)) throw new CliError(`config file ${path} does not exist`);
  const stat = statSync(path);
  if (stat.isDirectory()) throw new CliError(`config file ${path} is a folder, not a file`);
  if (!stat.isFile()) throw new CliError(`config file ${path} is not a regular file`);
  if (stat.size > MAX_CONFIG_BYTES)
    throw new CliError(`config file ${path} is ${stat.size} bytes; at most ${MAX_CONFIG_BYTES} are read`);
  // JSON with comments (what `agentlane init` writes): // and /* */ comments and trailing commas are allowed.
  let text: string;
  try {
    // A UTF-8 byte order mark (some editors write one) is not part of the JSON.
    text = readFileSync(path, 'utf8').replace(/^\uFEFF/, '');
  } catch (err) {
    throw new CliError(`cannot read config file ${path} (${(err as Error).message.split(', ')[0]})`);
  }
  const raw = parseJsonc(text, path);
  if (!checkConfig.Check(raw)) {
    const [, errors] = checkConfig.Errors(raw);
    throw new CliError(`config file ${path}: ${describeSchemaError(errors)}`);
  }
  const wrong = engineFieldProblem((raw.engines ?? []) as EngineConfig[]);
  if (wrong) throw new CliError(`config file ${path}: ${wrong}`);
  return raw;
}

/**
 * The config text's value, or one line saying why there is none: a syntax error, nesting too deep, or a key
 * given twice in one object (which JSON.parse and jsonc-parser resolve silently, the last one winning).
 */
function parseJsonc(text: string, path: string): unknown {
  const errors: jsonc.ParseError[] = [];
  let raw: unknown;
  let duplicate: ReturnType<typeof firstDuplicateKey>;
  try {
    raw = jsonc.parse(text, errors, { allowTrailingComma: true, disallowComments: false });
    duplicate = errors.length === 0 ? firstDuplicateKey(text) : undefined;
  } catch (err) {
    // jsonc-parser recurses per nesting level: 100,000 `[` overflowed the stack.
    if (err instanceof RangeError) throw new CliError(`config file ${path} is nested too deeply`);
    throw err;
  }
  const bad = errors[0];
  if (bad) {
    const line = text.slice(0, bad.offset).split('\n').length;
    throw new CliError(
      `config file ${path} is not valid JSON: ${jsonc.printParseErrorCode(bad.error)} at line ${line}`,
    );
  }
  if (duplicate)
    throw new CliError(
      `config file ${path}: duplicate key ${JSON.stringify(pathText(duplicate.path, raw))} at line ${duplicate.line}`,
    );
  return raw;
}

function parsePort(value: string, source: string): number {
  // Digits only: Number() read '' as 0 (a random port), '0x1F96' as 8086 and '1e3' as 1000.
  const port = /^[0-9]{1,5}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new CliError(`${source} must be a port number (0-65535), got "${value}"`);
  }
  return port;
}

/** An integer option from a flag or the environment, within the bounds the config file schema allows. */
/** The same token twice: only its first scope was used (an admin entry after a scoped one was ignored). */
function assertDistinctTokens(tokens: readonly { token: string }[]): void {
  const seen = new Map<string, number>();
  tokens.forEach(({ token }, i) => {
    const first = seen.get(token);
    if (first !== undefined)
      throw new CliError(
        `tokens[${i}] is the same token as tokens[${first}]: give each token one entry, one scope`,
      );
    seen.set(token, i);
  });
}

function parseTokens(value: string): ConfigFile['tokens'] {
  // AGENTLANE_TOKENS: comma-separated tokens scoped to all threads (use the config file for scoped ones).
  const tokens = value
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t.length > 0);
  // Only separators: a typo, never a wish to run without the configured tokens.
  if (tokens.length === 0) throw new CliError('AGENTLANE_TOKENS holds no token (unset it, or list tokens)');
  return tokens.map((token, i) => {
    if (token.length < 16)
      throw new CliError(`AGENTLANE_TOKENS: token ${i + 1} is shorter than 16 characters`);
    return { token, threads: '*' as const, name: `env-token-${i + 1}` };
  });
}

export function resolveServeConfig(flags: ServeFlags, env: NodeJS.ProcessEnv = process.env): ServeConfig {
  const configPath = flags.config ?? env.AGENTLANE_CONFIG;
  const file: ConfigFile = configPath ? readConfigFile(resolve(configPath)) : {};
  const base = configPath ? dirname(resolve(configPath)) : process.cwd();
  const fromFile = (p: string | undefined) =>
    p === undefined ? undefined : isAbsolute(p) ? p : resolve(base, p);

  const dataDir = resolve(flags.dataDir ?? env.AGENTLANE_DATA_DIR ?? fromFile(file.dataDir) ?? '.data');
  const db =
    flags.db ?? env.AGENTLANE_DB ?? (file.db && /^postgres/i.test(file.db) ? file.db : fromFile(file.db));
  const port =
    flags.port !== undefined
      ? parsePort(flags.port, '--port')
      : env.AGENTLANE_PORT !== undefined
        ? parsePort(env.AGENTLANE_PORT, 'AGENTLANE_PORT')
        : (file.port ?? DEFAULT_PORT);
  // An empty AGENTLANE_TOKENS (`AGENTLANE_TOKENS=${TOKENS:-}` in a compose file) counts as not set: it must not
  // silently drop the config file's tokens and open the server.
  const envTokens = env.AGENTLANE_TOKENS?.trim() ? env.AGENTLANE_TOKENS : undefined;
  const tokens = envTokens !== undefined ? parseTokens(envTokens) : (file.tokens ?? []);
  assertDistinctTokens(tokens ?? []);
  const workDir = resolve(env.AGENTLANE_WORK_DIR ?? fromFile(file.workDir) ?? process.cwd());
  const allowedHosts = env.AGENTLANE_ALLOWED_HOSTS?.trim()
    ? env.AGENTLANE_ALLOWED_HOSTS.split(',')
        .map((h) => h.trim())
        .filter(Boolean)
    : (file.allowedHosts ?? []);

  const runs = runSettings(flags, env, file);

  return {
    ...runs,
    host: flags.host ?? env.AGENTLANE_HOST ?? file.host ?? '127.0.0.1',
    port,
    db: db ?? resolve(dataDir, 'agentlane.db'),
    dataDir,
    webRoot: resolve(flags.webRoot ?? env.AGENTLANE_WEB_ROOT ?? fromFile(file.webRoot) ?? DEFAULT_WEB_ROOT),
    workDir,
    workspaceRoot: resolve(
      flags.workspaceRoot ?? env.AGENTLANE_WORKSPACE_ROOT ?? fromFile(file.workspaceRoot) ?? workDir,
    ),
    folderSettings: folderSettings(flags, env, file, configPath ? resolve(configPath) : undefined),
    allowedHosts,
    limits: file.limits ?? {},
    heartbeatMs: file.heartbeatMs ?? 10_000,
    maxBufferBytes: file.maxBufferBytes ?? 1024 * 1024,
    bodyLimitBytes: file.bodyLimitBytes ?? 1024 * 1024,
    tokens: tokens ?? [],
    engines: (file.engines ?? []) as EngineConfig[],
    recordedSessions: file.recordedSessions ?? true,
    discover: file.discover ?? configPath === undefined,
    ...(configPath ? { configPath: resolve(configPath) } : {}),
    logLevel:
      flags.logLevel !== undefined
        ? parseLogLevel(flags.logLevel, '--log-level')
        : env.AGENTLANE_LOG_LEVEL !== undefined
          ? parseLogLevel(env.AGENTLANE_LOG_LEVEL, 'AGENTLANE_LOG_LEVEL')
          : (file.logLevel ?? 'info'),
  };
}
