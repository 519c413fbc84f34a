#!/usr/bin/env node
// Gate: every package that runs an install script (a native build such as better-sqlite3's) is in the
// root lockfile at most once. Two versions of one native module means `npm ci` compiles it twice (12.6.2
// for the project and 12.11.1 under the LangGraph SQLite saver cost a whole build); align the pins or add
// an npm override instead.
//
// Usage: node scripts/gates/native-builds-once.mjs [package-lock.json]

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const lockPath =
  process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'package-lock.json');
const lock = JSON.parse(readFileSync(lockPath, 'utf8'));

/** name → the lockfile paths (with versions) of every copy that has an install script */
const copies = new Map();
for (const [path, entry] of Object.entries(lock.packages ?? {})) {
  if (!entry.hasInstallScript || !path.includes('node_modules/')) continue;
  const name = path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
  copies.set(name, [...(copies.get(name) ?? []), `${path}@${entry.version}`]);
}
const doubled = [...copies].filter(([, paths]) => paths.length > 1);
for (const [name, paths] of doubled) {
  console.error(`${name} is installed ${paths.length} times, so npm ci builds it ${paths.length} times:`);
  for (const p of paths) console.error(`  ${p}`);
}
if (doubled.length > 0) process.exit(1);
console.log(`${copies.size} packages with install scripts, each installed once`);
