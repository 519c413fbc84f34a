#!/usr/bin/env node
// Usage: node --conditions=agentlane-source --import tsx packages/checkpoint-conformance/src/cli.ts [memory|sqlite|postgres|./my-init.ts] [--filter RE] [--pg-url URL]
// A custom backend is a module whose default export is a SaverInitializer.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { memoryInitializer, pgInitializer, pgReachable, sqliteInitializer } from './initializers.js';
import { runConformance, type SaverInitializer } from './runner.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { filter: { type: 'string' }, 'pg-url': { type: 'string' }, 'full-every': { type: 'string' } },
});
const pgUrl =
  values['pg-url'] ?? process.env.AGENTLANE_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const fullEvery = values['full-every'] === undefined ? undefined : Number(values['full-every']);
const options = fullEvery === undefined ? {} : { fullSnapshotEvery: fullEvery };

async function initializerFor(target: string): Promise<SaverInitializer | undefined> {
  if (target === 'memory') return memoryInitializer(options);
  if (target === 'sqlite') return sqliteInitializer(options);
  if (target === 'postgres') {
    const why = await pgReachable(pgUrl);
    if (why === undefined) return pgInitializer(pgUrl, options);
    if (process.env.CI === 'true')
      throw new Error(`PostgreSQL unreachable at ${pgUrl} (CI=true makes this a failure): ${why}`);
    console.log(`- skip postgres: server unreachable at ${pgUrl}: ${why}`);
    return undefined;
  }
  const mod = (await import(pathToFileURL(resolve(target)).href)) as { default?: SaverInitializer };
  if (!mod.default) throw new Error(`${target} has no default export (a SaverInitializer)`);
  return mod.default;
}

let failed = 0;
for (const target of positionals.length > 0 ? positionals : ['memory', 'sqlite', 'postgres']) {
  const init = await initializerFor(target);
  if (!init) continue;
  console.log(`# ${init.name}`);
  const outcomes = await runConformance(init, values.filter ? { filter: new RegExp(values.filter) } : {});
  const count = (status: string) => outcomes.filter((o) => o.status === status).length;
  console.log(
    `# ${init.name}: ${count('passed')} passed, ${count('failed')} failed, ${count('skipped')} skipped`,
  );
  failed += count('failed');
}
process.exitCode = failed > 0 ? 1 : 0;
