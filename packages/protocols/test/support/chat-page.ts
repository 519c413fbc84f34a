import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../chat-page', import.meta.url));

/**
 * Builds test/chat-page (a page on the real `useChat` hook) with Vite into a new folder, for
 * `agentlane serve --config` with that folder as its `webRoot`. A production build: Vitest sets NODE_ENV
 * to "test", which would make React's development bundle.
 */
export async function buildChatPage(): Promise<string> {
  const outDir = await mkdtemp(join(tmpdir(), 'agentlane-chat-page-'));
  const { build } = await import('vite');
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await build({
      configFile: false,
      root,
      mode: 'production',
      logLevel: 'error',
      build: { outDir, emptyOutDir: true, chunkSizeWarningLimit: 4096, reportCompressedSize: false },
    });
  } finally {
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = nodeEnv;
  }
  return outDir;
}
