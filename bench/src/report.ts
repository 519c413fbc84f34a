import type { BenchResult } from './types';

/** A fixed-width table for the terminal. */
export function formatTable(rows: BenchResult[]): string {
  const cells = rows.map((r) => [
    r.name,
    formatValue(r.value),
    r.unit,
    r.ratio === undefined ? '' : r.ratio.toFixed(2),
    r.extra ?? '',
  ]);
  const header = ['name', 'value', 'unit', 'ratio', 'extra'];
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] ?? '').length)));
  const line = (c: string[]) => c.map((v, i) => v.padEnd(widths[i] ?? 0)).join('  ');
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}

function formatValue(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  return Math.abs(v) >= 100 ? v.toFixed(0) : v.toPrecision(4);
}

/**
 * Merges fresh results into the previous file: a suite that ran replaces its own names, results of suites
 * that did not run this time are kept, so running one suite does not wipe the others' figures.
 */
export function mergeResults(previous: BenchResult[], fresh: BenchResult[]): BenchResult[] {
  const freshNames = new Set(fresh.map((r) => r.name));
  return [...previous.filter((r) => !freshNames.has(r.name)), ...fresh];
}
