import { createExternalDriver, type DiscoveredEngine, type EngineDriver } from '@agentlane/engine-kit';
import { CliError } from './cli-error.js';
import type { EngineConfig } from './config.js';

/**
 * Which package implements each configured engine type. Every adapter exports `createDriver(config)`; the
 * registry imports it only when an engine of that type is configured, so an unused adapter costs nothing.
 */
type AdapterType = Exclude<EngineConfig['type'], 'external'>;

/** `external` (turns run by a runtime outside this process, see docs/external-runtimes.md) needs no adapter. */
const ADAPTERS: Record<AdapterType, string> = {
  acp: '@agentlane/adapter-acp',
  opencode: '@agentlane/adapter-opencode',
  replay: '@agentlane/adapter-replay',
  builtin: '@agentlane/adapter-builtin',
};

/**
 * Adapters that keep session state next to the events, and the option that says where: unless the entry
 * names a place itself, they get the server's database (SQLite path or postgres URL), so a restarted
 * `agentlane serve` resumes their sessions from it.
 */
const DATABASE_OPTION: Partial<Record<AdapterType, string>> = {
  builtin: 'checkpoints',
};

type AdapterModule = {
  createDriver?: (config: Record<string, unknown>) => EngineDriver | Promise<EngineDriver>;
  recordedSessionDrivers?: (options?: { speed?: number }) => EngineDriver[];
  discoverEngines?: (env: NodeJS.ProcessEnv, options: { cwd: string }) => DiscoveredEngine[];
};

/** An engine found without a config file: its config entry, what is kept in memory only, and why. */
export interface EngineOffer {
  entry: EngineConfig;
  inMemory?: Record<string, unknown>;
  why: string;
  /** Variables it needs at run time. */
  env: string[];
  /** What a config file written from it should say beside it. */
  notes?: string[];
}

/**
 * Asks every adapter what it can run here (keys in the environment, agents on PATH or in the project's
 * node_modules). An adapter that fails to load or to look offers nothing; discovery never throws.
 */
export async function discoverEngines(env: NodeJS.ProcessEnv, cwd: string): Promise<EngineOffer[]> {
  const offers: EngineOffer[] = [];
  for (const type of Object.keys(ADAPTERS) as AdapterType[]) {
    try {
      const mod = await loadAdapter(type);
      for (const found of mod.discoverEngines?.(env, { cwd }) ?? []) {
        offers.push({
          entry: { ...found.options, type } as EngineConfig,
          ...(found.inMemory ? { inMemory: found.inMemory } : {}),
          why: found.why,
          env: found.env,
          ...(found.notes ? { notes: found.notes } : {}),
        });
      }
    } catch {
      // This adapter cannot look here: it offers nothing.
    }
  }
  return offers;
}

async function loadAdapter(type: AdapterType): Promise<AdapterModule> {
  const specifier = ADAPTERS[type];
  try {
    return (await import(specifier)) as AdapterModule;
  } catch (err) {
    throw new CliError(
      `engine type "${type}" is not available (${specifier}: ${(err as Error).message.split('\n')[0]})`,
    );
  }
}

/** One engine entry's driver; `where` names the entry in errors (e.g. engines[2]). */
export async function createEngineDriver(
  entry: EngineConfig,
  where: string,
  options: { database?: string; inMemory?: Record<string, unknown> },
): Promise<EngineDriver> {
  if (entry.type === 'external') {
    const { idleTimeoutMs, label } = entry;
    try {
      return createExternalDriver({
        name: entry.name,
        ...(typeof label === 'string' ? { label } : {}),
        ...(idleTimeoutMs !== undefined ? { idleTimeoutMs: idleTimeoutMs as number } : {}),
      });
    } catch (err) {
      throw new CliError(`${where} (${entry.name}): ${(err as Error).message}`);
    }
  }
  const mod = await loadAdapter(entry.type);
  if (typeof mod.createDriver !== 'function')
    throw new CliError(`${where} (${entry.name}): ${ADAPTERS[entry.type]} does not export createDriver`);
  const { type: _type, ...adapterOptions } = entry;
  const databaseOption = DATABASE_OPTION[entry.type];
  if (databaseOption && options.database !== undefined && adapterOptions[databaseOption] === undefined)
    adapterOptions[databaseOption] = options.database;
  try {
    return await mod.createDriver({ ...adapterOptions, ...options.inMemory });
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw new CliError(`${where} (${entry.name}): ${(err as Error).message.split('\n')[0]}`);
  }
}

/** Builds one driver per configured engine, plus the bundled recorded sessions as replay engines. */
export async function buildDrivers(
  engines: readonly EngineConfig[],
  options: {
    recordedSessions: boolean;
    /** The server's database, the default place of the adapters in DATABASE_OPTION. */
    database?: string;
  },
): Promise<EngineDriver[]> {
  const drivers: EngineDriver[] = [];
  const names = new Set<string>();
  const add = (driver: EngineDriver) => {
    if (names.has(driver.name))
      throw new CliError(`two engines are configured under the name "${driver.name}"`);
    names.add(driver.name);
    drivers.push(driver);
  };
  for (const [i, entry] of engines.entries()) add(await createEngineDriver(entry, `engines[${i}]`, options));
  if (options.recordedSessions) {
    try {
      const replay = await loadAdapter('replay');
      for (const driver of replay.recordedSessionDrivers?.() ?? []) if (!names.has(driver.name)) add(driver);
    } catch {
      // No recordings bundled: the configured engines are all there is.
    }
  }
  return drivers;
}

/** Stops engine processes a driver started (drivers that own a server expose dispose()). */
export async function disposeDrivers(drivers: readonly EngineDriver[]): Promise<void> {
  await Promise.allSettled(
    drivers.map(
      (d) => (d as EngineDriver & { dispose?: () => Promise<void> }).dispose?.() ?? Promise.resolve(),
    ),
  );
}
