import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';

/** A fresh SQLite file in WAL mode in a temp folder, its first connection with `schema` run, and its removal. */
export async function walFile(
  name: string,
  schema: string,
): Promise<{ path: string; writer: Database.Database; remove(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'agentlane-store-wal-'));
  const path = join(dir, name);
  const writer = new Database(path);
  writer.pragma('journal_mode = WAL');
  writer.exec(schema);
  return { path, writer, remove: () => rm(dir, { recursive: true, force: true }) };
}
