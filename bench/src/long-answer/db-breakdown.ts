import type Database from 'better-sqlite3';

/** Bytes of pages per table and index (SQLite's dbstat), as a reader sees the database. */
export function tableBytes(reader: Database.Database): Map<string, number> {
  const rows = reader.prepare('SELECT name, SUM(pgsize) AS bytes FROM dbstat GROUP BY name').all() as {
    name: string;
    bytes: number;
  }[];
  return new Map(rows.map((r) => [r.name, r.bytes]));
}

/** Growth per table between two `tableBytes` readings, largest first, only those that grew. */
export function growth(before: Map<string, number>, after: Map<string, number>): [string, number][] {
  return [...after]
    .map(([name, bytes]): [string, number] => [name, bytes - (before.get(name) ?? 0)])
    .filter(([, grew]) => grew > 0)
    .sort((a, b) => b[1] - a[1]);
}
