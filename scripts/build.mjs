#!/usr/bin/env node
// `npm run build`: compiles the published packages and the CLI to JavaScript (tsc -b tsconfig.build.json:
// each package's src/ to dist/, .d.ts beside it). Incremental: with nothing changed it only compares
// timestamps (well under a second of CPU), so `npm start` runs it every time and never serves a stale
// build. Tests and the tools under scripts/ run the TypeScript sources instead (the `agentlane-source`
// export condition).
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Builds what is missing or stale; returns false (after printing tsc's errors) when the build fails. */
export function build() {
  const tsc = createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');
  const started = Date.now();
  const result = spawnSync(process.execPath, [tsc, '-b', join(root, 'tsconfig.build.json')], {
    cwd: root,
    stdio: 'inherit',
  });
  return { ok: result.status === 0, ms: Date.now() - started };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { ok, ms } = build();
  console.log(ok ? `build: done in ${(ms / 1000).toFixed(1)} s` : 'build: FAILED');
  process.exit(ok ? 0 : 1);
}
