import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

function anyFileContains(dir: string, text: string): boolean {
  for (const entry of existsSync(dir) ? readdirSync(dir, { withFileTypes: true }) : []) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (anyFileContains(path, text)) return true;
    } else if (entry.isFile() && statSync(path).size < 16 * 1024 * 1024) {
      if (readFileSync(path, 'utf8').includes(text)) return true;
    }
  }
  return false;
}

/**
 * Waits until a file below the engine homes holds `text` — the engine has written its own transcript of a
 * turn. Engines persist their sessions after they answer (Claude Code on a timer), so a test that kills an
 * engine right after a turn and expects the restarted one to remember it must wait for this first; agentlane
 * cannot make an engine's own storage durable.
 */
export async function waitForEngineTranscript(
  homes: string,
  text: string,
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!anyFileContains(homes, text)) {
    if (Date.now() > deadline)
      throw new Error(`no engine file below ${homes} holds "${text}" after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
