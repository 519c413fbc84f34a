import { claudeCodePreset, codexPreset, geminiPreset } from '@agentlane/adapter-acp';
import { engineEntries, missingEngine } from '../../src/index';

/** The ACP engines' presets, by the name each is installed under in testing/engines. */
export const presets = { claude: claudeCodePreset, codex: codexPreset, gemini: geminiPreset } as const;

/**
 * Where the pinned engines live, and the ACP engines installed in testing/engines/real (installed on first
 * use): in CI a missing one fails the suite, elsewhere it is skipped with a warning naming `suite`.
 */
export function installedAcpEngines(suite: string) {
  const entries = engineEntries();
  const engines = (['claude', 'codex', 'gemini'] as const).filter((name) => {
    if (entries[name]) return true;
    if (process.env.CI === 'true') throw new Error(missingEngine(name, entries));
    console.warn(`[skip] ${name} ${suite}: ${missingEngine(name, entries)}`);
    return false;
  });
  return { entries, engines };
}

/** Polls `check` every 25 ms until it holds; throws after `ms`. */
export async function until(check: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 25));
  }
}
