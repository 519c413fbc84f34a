// Node-side entry: where the built UI lives and how to build it, for `agentlane serve` and `npm start`.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The folder `vite build` writes the UI to; serve it at `/`. */
export const webRoot: string = fileURLToPath(new URL('../dist', import.meta.url));

export function isWebBuilt(): boolean {
  return existsSync(`${webRoot}/index.html`);
}

/** Builds the UI with Vite when dist is missing (a fresh clone); a no-op otherwise. */
export async function ensureWebBuilt(options: { force?: boolean; quiet?: boolean } = {}): Promise<string> {
  if (options.force || !isWebBuilt()) {
    const { build } = await import('vite');
    await build({
      configFile: fileURLToPath(new URL('../vite.config.ts', import.meta.url)),
      logLevel: options.quiet ? 'warn' : 'info',
    });
  }
  return webRoot;
}
