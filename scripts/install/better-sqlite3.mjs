// The root package's postinstall: builds better-sqlite3's native module. The root package.json's
// `allowScripts` denies better-sqlite3's own install script (npm 11.19+), so this runs in its place, once.
// Like that script it first tries a prebuilt binary (prebuild-install). Without one it compiles SQLite
// from the package's own amalgamation with the package's own compile options, except:
//   - no FTS3/FTS4/FTS5, R*Tree or Geopoly: agentlane uses none of them, and they are 30% of the
//     amalgamation's compile (59 s → 41 s of one core here), most of a fresh `npm ci`;
//   - HAVE_FDATASYNC: commits sync with fdatasync, as SQLite's own Linux builds do (its configure script
//     finds fdatasync); without it SQLite falls back to fsync, which also journals the file's mtime.
// It uses better-sqlite3's documented custom-amalgamation option (`node-gyp rebuild --sqlite3=<folder>`).
// Should the package's layout ever change so that this cannot be done, it warns and builds the stock way.
// An npm that does not know `allowScripts` has run better-sqlite3's own script already: then this leaves
// that build alone.

import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** better-sqlite3's compile options that agentlane leaves out of its SQLite build. */
const LEFT_OUT = new Set([
  'SQLITE_ENABLE_FTS3',
  'SQLITE_ENABLE_FTS3_PARENTHESIS',
  'SQLITE_ENABLE_FTS4',
  'SQLITE_ENABLE_FTS5',
  'SQLITE_ENABLE_RTREE',
  'SQLITE_ENABLE_GEOPOLY',
]);
const ADDED = ['HAVE_FDATASYNC=1'];

function resolveFrom(dir, request) {
  return createRequire(join(dir, 'package.json')).resolve(request);
}

function run(command, args, cwd) {
  return spawnSync(command, args, { cwd, stdio: 'inherit' }).status === 0;
}

/** npm's own node-gyp: npm hands its path to every lifecycle script. */
function nodeGyp() {
  const path = process.env.npm_config_node_gyp;
  if (path && existsSync(path)) return path;
  return resolveFrom(dirname(process.env.npm_execpath ?? ''), 'node-gyp/bin/node-gyp.js');
}

/** `NAME` or `NAME=VALUE` entries of better-sqlite3's generated deps/defines.gypi. */
function stockDefines(dir) {
  const gypi = readFileSync(join(dir, 'deps', 'defines.gypi'), 'utf8');
  const list = gypi.slice(gypi.indexOf("'defines'") + "'defines'".length);
  const defines = [...list.matchAll(/'([A-Za-z_][A-Za-z0-9_]*(?:=[^']*)?)'/g)].map((m) => m[1]);
  if (!defines.includes('SQLITE_ENABLE_COLUMN_METADATA'))
    throw new Error('deps/defines.gypi has an unexpected shape');
  return defines;
}

function defineLine(entry) {
  const at = entry.indexOf('=');
  const [name, value] = at < 0 ? [entry, '1'] : [entry.slice(0, at), entry.slice(at + 1)];
  return `#ifndef ${name}\n# define ${name} ${value}\n#endif`;
}

/** The custom amalgamation folder: the stock sqlite3.c behind agentlane's defines, and sqlite3.h. */
function writeAmalgamation(dir) {
  const stock = join(dir, 'deps', 'sqlite3');
  const folder = join(dir, 'deps', 'agentlane-sqlite3');
  const defines = [...stockDefines(dir).filter((d) => !LEFT_OUT.has(d.split('=')[0])), ...ADDED];
  const header = `/* agentlane's SQLite options (scripts/install/better-sqlite3.mjs): better-sqlite3's, without ${[...LEFT_OUT].join(', ')}; with ${ADDED.join(', ')}. */\n${defines.map(defineLine).join('\n')}\n`;
  mkdirSync(folder, { recursive: true });
  writeFileSync(
    join(folder, 'sqlite3.c'),
    Buffer.concat([Buffer.from(header), readFileSync(join(stock, 'sqlite3.c'))]),
  );
  copyFileSync(join(stock, 'sqlite3.h'), join(folder, 'sqlite3.h'));
  return folder;
}

/** Compiles the module; returns how (for the marker), or undefined when the build failed. */
function compile(dir) {
  const args = [nodeGyp(), 'rebuild', '--release'];
  let how = 'agentlane';
  try {
    args.push(`--sqlite3=${writeAmalgamation(dir)}`);
  } catch (error) {
    console.warn(`better-sqlite3: building its stock SQLite (${error.message})`);
    how = 'stock';
  }
  return run(process.execPath, args, dir) ? how : undefined;
}

/**
 * build/agentlane-build.json says how the module was made: `agentlane` (the options above), `prebuilt`
 * (downloaded: better-sqlite3's stock options) or `stock` (compiled with them). scripts/test/sqlite-build.test.ts
 * reads it.
 */
function mark(dir, built) {
  const marker = built === 'agentlane' ? { built, leftOut: [...LEFT_OUT], added: ADDED } : { built };
  mkdirSync(join(dir, 'build'), { recursive: true });
  writeFileSync(join(dir, 'build', 'agentlane-build.json'), `${JSON.stringify(marker, null, 2)}\n`);
}

const dir = dirname(resolveFrom(process.cwd(), 'better-sqlite3/package.json'));
if (existsSync(join(dir, 'build', 'Release', 'better_sqlite3.node'))) {
  console.log('better-sqlite3 is built already');
} else if (run(process.execPath, [resolveFrom(dir, 'prebuild-install/bin.js')], dir)) {
  mark(dir, 'prebuilt');
} else {
  const built = compile(dir);
  if (!built) {
    console.error('better-sqlite3: the native build failed (see above)');
    process.exit(1);
  }
  mark(dir, built);
}
