/**
 * `npm run bench [-- <filter>...]`: discovers `suites/*.bench.ts`, runs each (optionally only those whose file
 * name contains a filter), prints a table and merges the figures into bench/results.json.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { formatTable, mergeResults } from './report';
import type { BenchResult, BenchSuite } from './types';

const here = dirname(fileURLToPath(import.meta.url));
const suitesDir = join(here, 'suites');
const resultsPath = join(here, '..', 'results.json');

async function main(): Promise<void> {
  const filters = process.argv.slice(2).filter((a) => !a.startsWith('-'));
  const files = readdirSync(suitesDir)
    .filter((f) => f.endsWith('.bench.ts'))
    .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
    .sort();
  if (files.length === 0) {
    console.error(`no suites matched in ${suitesDir}`);
    process.exitCode = 1;
    return;
  }
  const all: BenchResult[] = [];
  let failed = false;
  for (const [index, file] of files.entries()) {
    console.log(`\n# ${file} (${index + 1}/${files.length})`);
    const started = Date.now();
    // Suites run for minutes (kill cycles, long answers): a line every 15 s says which one is still going.
    const heartbeat = setInterval(() => {
      const seconds = Math.round((Date.now() - started) / 1000);
      console.error(`[bench] ${file} (${index + 1}/${files.length}) still running, ${seconds} s`);
    }, 15_000);
    try {
      const mod = (await import(pathToFileURL(join(suitesDir, file)).href)) as Partial<BenchSuite>;
      if (typeof mod.run !== 'function') throw new Error('does not export run()');
      const results = await mod.run();
      console.log(formatTable(results));
      all.push(...results);
    } catch (err) {
      failed = true;
      console.error(`suite ${file} failed:`, err);
    } finally {
      clearInterval(heartbeat);
    }
    console.log(`(${((Date.now() - started) / 1000).toFixed(1)} s)`);
  }
  const previous: BenchResult[] = existsSync(resultsPath)
    ? (JSON.parse(readFileSync(resultsPath, 'utf8')) as BenchResult[])
    : [];
  writeFileSync(resultsPath, `${JSON.stringify(mergeResults(previous, all), null, 2)}\n`);
  console.log(`\nwrote ${all.length} results to ${resultsPath}`);
  if (failed) process.exitCode = 1;
}

await main();
