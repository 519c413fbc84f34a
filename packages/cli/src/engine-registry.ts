import { createExternalDriver, type DiscoveredEngine, type EngineDriver } from '@agentlane/engine-kit';
import { ADAPTERS, type AdapterType } from './adapters.js';
import { CliError } from './cli-error.js';
import type { EngineConfig } from './config.js';
import { type EngineServices, engineServices } from './engine-services.js';

type AdapterModule = {
  createDriver?: (
    config: Record<string, unknown>,
    services: EngineServices,
  ) => EngineDriver | Promise<EngineDriver>;
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
      const mod = await loadDiscovery(type);
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

/**
 * An adapter's `./discover` entry: light enough to load at every start (the whole package, with its
 * engine's SDK, is loaded only for an engine that is offered). An adapter without one finds nothing.
 */
async function loadDiscovery(type: AdapterType): Promise<Pick<AdapterModule, 'discoverEngines'>> {
  try {
    return (await import(`${ADAPTERS[type]}/discover`)) as Pick<AdapterModule, 'discoverEngines'>;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_PACKAGE_PATH_NOT_EXPORTED') return {};
    throw err;
  }
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
  options: { database?: string; inMemory?: Record<string, unknown>; secrets?: readonly string[] },
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
  // What the adapter keeps state in (the server's database unless its entry names a place) is opened here and
  // closed when the driver is disposed.
  const services = engineServices(options.database, options.secrets);
  try {
    const driver = await mod.createDriver({ ...adapterOptions, ...options.inMemory }, services);
    SERVICES.set(driver, services);
    return driver;
  } catch (err) {
    await services.close();
    if (err instanceof CliError) throw err;
    throw new CliError(`${where} (${entry.name}): ${(err as Error).message.split('\n')[0]}`);
  }
}

/** Builds one driver per configured engine, plus the bundled recorded sessions as replay engines. */
export async function buildDrivers(
  engines: readonly EngineConfig[],
  options: {
    recordedSessions: boolean;
    /** The server's database, where adapters keep their state unless their entry names a place. */
    database?: string;
    /** What the server knows to be secret (serverSecrets): engines keep it out of their own state. */
    secrets?: readonly string[];
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

/** The services each driver was given (closed with it). */
const SERVICES = new WeakMap<EngineDriver, { close(): Promise<void> }>();

/**
 * Stops engine processes a driver started (drivers that own a server expose dispose()), then closes what
 * was opened for it (its checkpoint saver).
 */
export async function disposeDrivers(drivers: readonly EngineDriver[]): Promise<void> {
  await Promise.allSettled(
    drivers.map(async (d) => {
      try {
        await (d as EngineDriver & { dispose?: () => Promise<void> }).dispose?.();
      } finally {
        await SERVICES.get(d)?.close();
        SERVICES.delete(d);
      }
    }),
  );
}
