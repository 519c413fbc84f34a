import { type Dialect, type MigrationSet, quoteIdent, renderDdl } from '@agentlane/sql';

/**
 * The checkpoint tables, written once for both dialects (`{{autoId}}`, `{{bool}}`, `{{false}}` are the SQL
 * layer's DDL roles; `{{S}}` is the schema prefix on PostgreSQL, empty on SQLite). Append-only: the index is
 * the schema version. Own table names and own version table, so the database can be shared with the event
 * store without the migration lists colliding.
 */
const CHECKPOINT_MIGRATIONS: readonly { name: string; ddl: string }[] = [
  {
    name: 'checkpoints and pending writes',
    ddl: `CREATE TABLE {{S}}harness_checkpoints (
    seq {{autoId}},
    session_id TEXT NOT NULL,
    checkpoint_id TEXT NOT NULL,
    namespace TEXT NOT NULL DEFAULT '',
    parent_checkpoint_id TEXT,
    stage_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    schema_version INTEGER NOT NULL,
    storage TEXT NOT NULL CHECK (storage IN ('full', 'delta')),
    base_distance INTEGER NOT NULL,
    channels TEXT NOT NULL,
    pinned {{bool}} NOT NULL DEFAULT {{false}},
    UNIQUE (session_id, checkpoint_id)
  );
  CREATE INDEX harness_checkpoints_by_namespace ON {{S}}harness_checkpoints (session_id, namespace, seq);
  CREATE INDEX harness_checkpoints_by_session ON {{S}}harness_checkpoints (session_id, seq);
  CREATE TABLE {{S}}harness_checkpoint_writes (
    seq {{autoId}},
    session_id TEXT NOT NULL,
    checkpoint_id TEXT NOT NULL,
    task_id TEXT NOT NULL,
    idx INTEGER NOT NULL,
    channel TEXT NOT NULL,
    value TEXT NOT NULL,
    UNIQUE (session_id, checkpoint_id, task_id, idx)
  );`,
  },
  {
    // The newest checkpoint of a namespace as its full base plus one merged delta, so a cold get-latest
    // reads two rows instead of the chain (docs/checkpoint-storage.md). Optional: a stale or missing row
    // reads the chain.
    name: 'a materialized head per namespace',
    ddl: `CREATE TABLE {{S}}harness_checkpoint_heads (
    session_id TEXT NOT NULL,
    namespace TEXT NOT NULL,
    checkpoint_id TEXT NOT NULL,
    base_checkpoint_id TEXT NOT NULL,
    since_base TEXT NOT NULL,
    PRIMARY KEY (session_id, namespace)
  )`,
  },
  {
    // Where the head's base keeps its long lists, so a cold reader parses the base in pieces
    // (savers/base-layout.ts). Optional: NULL reads the base whole.
    name: 'the layout of a head base',
    ddl: 'ALTER TABLE {{S}}harness_checkpoint_heads ADD COLUMN base_layout TEXT',
  },
  {
    // Shipped for a few hours in session 18 (a V8 image of the head base for cold reads, taken out again:
    // docs/performance.md). Kept so databases that applied it open; the next entry drops its table.
    name: 'the image of a head base',
    ddl: `CREATE TABLE {{S}}harness_checkpoint_base_images (
    session_id TEXT NOT NULL,
    namespace TEXT NOT NULL,
    checkpoint_id TEXT NOT NULL,
    image {{bytes}} NOT NULL,
    PRIMARY KEY (session_id, namespace)
  )`,
  },
  {
    name: 'no image of a head base',
    ddl: 'DROP TABLE {{S}}harness_checkpoint_base_images',
  },
];

/**
 * The savers' migration set for one dialect (and schema on PostgreSQL). The version table keeps its original
 * shape (no name column), so databases the savers created before the SQL layer open unchanged.
 */
export function checkpointMigrations(dialect: Dialect, schema?: string): MigrationSet {
  const prefix = schema ? `${quoteIdent(schema)}.` : '';
  return {
    table: `${prefix}harness_checkpoint_migrations`,
    recordsNames: false,
    lockKey: `harness_checkpoint_migrations:${schema ?? ''}`,
    migrations: CHECKPOINT_MIGRATIONS.map((m) => ({
      name: m.name,
      sql: renderDdl(m.ddl, dialect, { S: prefix }),
    })),
  };
}
