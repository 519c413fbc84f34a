import { engineEntries, missingEngine } from '../src/index';

/** The binary, or why the OpenCode tests cannot run here (in CI a missing binary fails instead). */
export function openCodeBinaryOrReason(): { binary?: string; reason?: string } {
  const entries = engineEntries();
  if (entries.opencode) return { binary: entries.opencode };
  const reason = missingEngine('opencode', entries);
  if (process.env.CI === 'true') throw new Error(reason);
  return { reason };
}
