import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EngineDriver, SecretRedactor } from '@agentlane/engine-kit';
import { createEngineDriver, disposeDrivers, type EngineOffer } from './engine-registry.js';
import { serverRedactor } from './secrets.js';

/** An engine that was found but is not offered, and why (GET /health and the log say it). */
export interface UnavailableEngine {
  name: string;
  label: string;
  reason: string;
}

const firstLine = (err: unknown) => (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';

/**
 * Starts a session of the engine in a scratch folder (the engine process starts and negotiates, where it
 * has one) and closes it again; rejects with the reason when it cannot within `timeoutMs`.
 */
export async function probeDriver(driver: EngineDriver, timeoutMs: number): Promise<void> {
  const workDir = await mkdtemp(join(tmpdir(), 'agentlane-probe-'));
  let timer: NodeJS.Timeout | undefined;
  const opening = driver.openSession({
    threadId: `probe-${driver.name}`,
    workDir,
    generation: 0,
    emit: () => {},
  });
  try {
    const session = await Promise.race([
      opening,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`did not start within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
    await session.close();
  } catch (err) {
    // A session that opens after the deadline is closed too, so no engine process is left behind.
    void opening.then((s) => s.close()).catch(() => {});
    throw err;
  } finally {
    clearTimeout(timer);
    await rm(workDir, { recursive: true, force: true }).catch(() => {});
  }
}

/**
 * Builds and probes every offer; only the engines that started are offered, the others are reported with
 * the reason (their drivers disposed). Never throws. `progress` hears one line per engine. A reason (which
 * may quote the engine's stderr) has every secret redacted: `redactor`, else one built from the offers and
 * the environment.
 */
export async function probeOffers(
  offers: readonly EngineOffer[],
  options: {
    database?: string;
    timeoutMs: number;
    progress?: (line: string) => void;
    redactor?: SecretRedactor;
    /** What the server knows to be secret, for the engines' own state (services.secrets). */
    secrets?: readonly string[];
  },
): Promise<{ drivers: EngineDriver[]; unavailable: UnavailableEngine[] }> {
  const redactor = options.redactor ?? serverRedactor({ offers });
  const drivers: EngineDriver[] = [];
  const unavailable: UnavailableEngine[] = [];
  for (const offer of offers) {
    const { name, label } = offer.entry as { name: string; label?: string };
    options.progress?.(`agentlane: checking engine ${name} (${offer.why})…`);
    let driver: EngineDriver | undefined;
    try {
      // The picker label says what it is and why it is offered, e.g. "… (gpt-4.1-mini) — OPENAI_API_KEY is set".
      const entry = { ...offer.entry, label: `${label ?? name} — ${offer.why}` };
      driver = await createEngineDriver(entry, `engine ${name}`, {
        ...(options.database !== undefined ? { database: options.database } : {}),
        ...(offer.inMemory ? { inMemory: offer.inMemory } : {}),
        ...(options.secrets ? { secrets: options.secrets } : {}),
      });
      await probeDriver(driver, options.timeoutMs);
      drivers.push(driver);
    } catch (err) {
      if (driver) await disposeDrivers([driver]);
      unavailable.push({ name, label: label ?? name, reason: redactor.text(firstLine(err)) });
    }
  }
  return { drivers, unavailable };
}
