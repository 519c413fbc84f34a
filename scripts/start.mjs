#!/usr/bin/env node
// `npm start`: `agentlane serve` on 127.0.0.1 with SQLite in ./.data (it prints the URL). Extra arguments
// pass through (`npm start -- --port 8080`); AGENTLANE_* environment variables apply as usual. It serves the
// compiled JavaScript: `tsc -b` first (incremental, a timestamp check when nothing changed; the whole build
// on a fresh clone), so an edited source is never served stale.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from './build.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'packages', 'cli', 'bin', 'agentlane.mjs');

const built = build();
if (!built.ok) {
  console.error('agentlane: the TypeScript build failed (tsc -b tsconfig.build.json, errors above)');
  process.exit(1);
}
console.log(`agentlane: packages built (tsc -b) in ${(built.ms / 1000).toFixed(1)} s`);

// A fresh clone has no built web UI: build it once (vite build → packages/web/dist) so `/` serves a page.
const web = join(root, 'packages', 'web');
if (!existsSync(join(web, 'dist', 'index.html'))) {
  console.log('agentlane: building the web UI (first start)…');
  const vite = join(root, 'node_modules', 'vite', 'bin', 'vite.js');
  const ui = spawnSync(process.execPath, [vite, 'build', '--logLevel', 'warn'], {
    cwd: web,
    stdio: 'inherit',
  });
  if (ui.status !== 0) console.error('agentlane: the web UI failed to build; the API still works.');
}
const args = [bin, 'serve', '--data-dir', join(root, '.data'), ...process.argv.slice(2)];
if (!process.argv.includes('--host') && !process.env.AGENTLANE_HOST) args.push('--host', '127.0.0.1');

// The compiled server: a `--conditions=agentlane-source` inherited from a test run would point it at .ts files.
const nodeOptions = (process.env.NODE_OPTIONS ?? '').replace(/--conditions=agentlane-source/g, '').trim();
const env = { ...process.env, NODE_OPTIONS: nodeOptions };
const child = spawn(process.execPath, args, { stdio: 'inherit', cwd: root, env });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
