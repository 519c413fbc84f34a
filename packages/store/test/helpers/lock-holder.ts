// Another process holding the SQLite write lock (as the sqlite3 shell or a backup would) until it reads a
// line on stdin: `lock-holder.ts <db>`. Prints `locked` once it holds the lock, `released` after COMMIT.
import Database from 'better-sqlite3';

const db = new Database(process.argv[2] as string);
db.exec('BEGIN IMMEDIATE');
process.stdout.write('locked\n');
process.stdin.once('data', () => {
  db.exec('COMMIT');
  db.close();
  process.stdout.write('released\n');
  process.exit(0);
});
