import {
  DEFAULT_APPROVAL_TIMEOUT_MS,
  DEFAULT_CANCEL_GRACE_MS,
  DEFAULT_ENGINE_IDLE_MS,
  DEFAULT_MAX_CONCURRENT_RUNS,
  DEFAULT_TURN_IDLE_MS,
} from '@agentlane/lane';
import { CliError } from './cli-error.js';

/** The longest an approval may wait (a week): the config file's bound too. */
export const APPROVAL_TIMEOUT_MAX_MS = 7 * 24 * 3_600_000;

/** A whole number from `min` to `max` in a flag or a variable, or one line naming where it came from. */
export function parseCount(value: string, source: string, min: number, max: number): number {
  const n = /^[0-9]+$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new CliError(`${source} must be an integer from ${min} to ${max}, got "${value}"`);
  }
  return n;
}

/** Each setting's default and range; its flag is `--kebab-case` and its variable `AGENTLANE_SNAKE_CASE`. */
const SETTINGS = {
  maxConcurrentRuns: { fallback: DEFAULT_MAX_CONCURRENT_RUNS, range: [1, 1000] },
  shutdownGraceMs: { fallback: 8000, range: [0, 3_600_000] },
  approvalTimeoutMs: { fallback: DEFAULT_APPROVAL_TIMEOUT_MS, range: [0, APPROVAL_TIMEOUT_MAX_MS] },
  cancelGraceMs: { fallback: DEFAULT_CANCEL_GRACE_MS, range: [0, 3_600_000] },
  engineIdleMs: { fallback: DEFAULT_ENGINE_IDLE_MS, range: [0, 86_400_000] },
  turnIdleMs: { fallback: DEFAULT_TURN_IDLE_MS, range: [0, 7 * 86_400_000] },
} as const satisfies Record<string, { fallback: number; range: readonly [number, number] }>;

type Plain = keyof typeof SETTINGS;
export type RunSettings = Record<Plain | 'runLeaseMs' | 'runLeaseRenewMs', number>;

const flagOf = (key: string) => `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
const envOf = (key: string) => `AGENTLANE_${key.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`;

/**
 * The run settings (slots, leases, shutdown grace, timeouts): flag > environment > config file > default,
 * each checked like the config file checks it.
 */
export function runSettings(
  flags: Partial<Record<keyof RunSettings, string>>,
  env: NodeJS.ProcessEnv,
  file: Partial<Record<keyof RunSettings, number>>,
): RunSettings {
  const count = (key: keyof RunSettings, fallback: number, [min, max]: readonly [number, number]) => {
    const flag = flags[key];
    const fromEnv = env[envOf(key)];
    if (flag !== undefined) return parseCount(flag, flagOf(key), min, max);
    if (fromEnv !== undefined) return parseCount(fromEnv, envOf(key), min, max);
    return file[key] ?? fallback;
  };
  const runLeaseMs = count('runLeaseMs', 10_000, [200, 3_600_000]);
  const runLeaseRenewMs = count(
    'runLeaseRenewMs',
    Math.min(2000, Math.floor(runLeaseMs / 5)),
    [50, 1_800_000],
  );
  if (runLeaseRenewMs * 2 > runLeaseMs)
    throw new CliError(
      `the run lease renewal (${runLeaseRenewMs} ms) must be at most half the lease (${runLeaseMs} ms)`,
    );
  const plain = Object.fromEntries(
    Object.entries(SETTINGS).map(([key, s]) => [key, count(key as Plain, s.fallback, s.range)]),
  ) as Record<Plain, number>;
  return { ...plain, runLeaseMs, runLeaseRenewMs };
}
