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
    // Vite builds React's development bundle when NODE_ENV says so (Vitest sets it to "test"), and
    // `npm start` would then serve a build made by a test run: always build for production.
    const nodeEnv = process.env.NODE_ENV;
    process.env.NODE_ENV = 'production';
    try {
      await build({
        configFile: fileURLToPath(new URL('../vite.config.ts', import.meta.url)),
        mode: 'production',
        logLevel: options.quiet ? 'warn' : 'info',
      });
    } finally {
      if (nodeEnv === undefined) delete process.env.NODE_ENV;
      else process.env.NODE_ENV = nodeEnv;
    }
  }
  return webRoot;
}
