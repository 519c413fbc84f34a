import { type Dialect, renderDdl } from '@agentlane/sql';
import { FRAME_SIGNATURES, type StoreMigration } from './frame-signature-migration.js';
import type { Migration } from './sql-conn.js';

/**
 * The store's schema for both databases, written once: version = index + 1 of each dialect's list. A table
 * is one DDL template (`{{bigint}}`, `{{bytes}}`, `{{identity}}`: the SQL layer's column spellings per
 * dialect); what really differs (trigger syntax, SQLite's WITHOUT ROWID rebuild, PostgreSQL's dropped
 * foreign keys) is an entry's per-dialect script, and an entry for one dialect only is marked `only`. Never
 * edit a shipped entry; add a new one at the end (in a file of its own: frame-signature-migration.ts).
 * Timestamps are ISO 8601 text, JSON is text.
 */

const INITIAL_TABLES = `
CREATE TABLE threads (
  thread_id TEXT PRIMARY KEY,
  engine TEXT NOT NULL,
  title TEXT,
  work_dir TEXT,
  metadata TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX threads_by_created ON threads (created_at DESC, thread_id DESC);
CREATE TABLE thread_heads (
  thread_id TEXT PRIMARY KEY REFERENCES threads (thread_id) ON DELETE CASCADE,
  head {{bigint}} NOT NULL
);
CREATE TABLE runs (
  run_id TEXT PRIMARY KEY,
  thread_id TEXT NOT NULL REFERENCES threads (thread_id) ON DELETE CASCADE,
  parent_run_id TEXT,
  status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'completed', 'failed')),
  prompt TEXT NOT NULL,
  options TEXT NOT NULL,
  created_at TEXT NOT NULL,
  started_at TEXT,
  ended_at TEXT,
  error TEXT,
  owner_id TEXT,
  canonicalized_at TEXT
);
CREATE INDEX runs_by_thread ON runs (thread_id, created_at, run_id);
CREATE INDEX runs_by_status ON runs (status, created_at, run_id);
CREATE TABLE commands (
  command_id TEXT PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('run.create', 'run.cancel')),
  thread_id TEXT NOT NULL REFERENCES threads (thread_id) ON DELETE CASCADE,
  run_id TEXT NOT NULL,
  idempotency_key TEXT,
  body_hash TEXT NOT NULL,
  payload TEXT NOT NULL,
  created_at TEXT NOT NULL,
  UNIQUE (kind, idempotency_key)
);
CREATE INDEX commands_by_created ON commands (created_at, command_id);
CREATE TABLE harness_sessions (
  thread_id TEXT PRIMARY KEY REFERENCES threads (thread_id) ON DELETE CASCADE,
  provider TEXT NOT NULL,
  engine TEXT NOT NULL,
  native_session_id TEXT,
  runtime_binding TEXT NOT NULL,
  protocol_version TEXT NOT NULL,
  capabilities TEXT NOT NULL,
  generation INTEGER NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE TABLE source_lanes (
  run_id TEXT PRIMARY KEY REFERENCES runs (run_id) ON DELETE CASCADE,
  thread_id TEXT NOT NULL,
  max_native_seq {{bigint}} NOT NULL,
  sealed_at TEXT
);
CREATE TABLE source_frames (
  run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
  native_seq {{bigint}} NOT NULL,
  received_at TEXT NOT NULL,
  frame TEXT NOT NULL,
  PRIMARY KEY (run_id, native_seq)
);
CREATE TABLE refused_frames (
  refusal_id {{identity}},
  run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
  received_at TEXT NOT NULL,
  frame TEXT NOT NULL,
  reason TEXT NOT NULL,
  refused_at TEXT NOT NULL
);
CREATE INDEX refused_frames_by_run ON refused_frames (run_id, refusal_id);
CREATE TABLE canonical_events (
  thread_id TEXT NOT NULL REFERENCES threads (thread_id) ON DELETE CASCADE,
  delivery_seq {{bigint}} NOT NULL,
  event_id TEXT NOT NULL,
  revision INTEGER NOT NULL,
  run_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  kind TEXT NOT NULL,
  schema_version INTEGER NOT NULL,
  event TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  provisional INTEGER NOT NULL,
  namespace TEXT,
  created_at TEXT NOT NULL,
  PRIMARY KEY (thread_id, delivery_seq),
  UNIQUE (event_id, revision)
);
CREATE INDEX canonical_events_by_run ON canonical_events (thread_id, run_id, delivery_seq);
`;

const INITIAL_REST = `CREATE TABLE canonicalization_outbox (
  run_id TEXT PRIMARY KEY REFERENCES runs (run_id) ON DELETE CASCADE,
  thread_id TEXT NOT NULL,
  enqueued_at TEXT NOT NULL,
  attempts INTEGER NOT NULL,
  last_error TEXT,
  leased_by TEXT,
  lease_until TEXT
);
CREATE TABLE canonicalization_completions (
  run_id TEXT PRIMARY KEY REFERENCES runs (run_id) ON DELETE CASCADE,
  thread_id TEXT NOT NULL,
  last_delivery_seq {{bigint}} NOT NULL,
  max_native_seq {{bigint}} NOT NULL,
  signature TEXT NOT NULL,
  completed_at TEXT NOT NULL
);
CREATE TABLE interaction_answers (
  answer_id TEXT PRIMARY KEY,
  thread_id TEXT NOT NULL REFERENCES threads (thread_id) ON DELETE CASCADE,
  run_id TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('approval', 'question')),
  target_id TEXT NOT NULL,
  answer TEXT NOT NULL,
  created_at TEXT NOT NULL,
  delivered_at TEXT,
  UNIQUE (run_id, kind, target_id)
);
CREATE TABLE sync_heads (
  session_id TEXT PRIMARY KEY,
  head {{bigint}} NOT NULL
);
CREATE TABLE sync_changes (
  session_id TEXT NOT NULL,
  client_id TEXT NOT NULL,
  version INTEGER NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  vector TEXT NOT NULL,
  server_seq {{bigint}} NOT NULL,
  received_at TEXT NOT NULL,
  PRIMARY KEY (session_id, client_id, version),
  UNIQUE (session_id, server_seq)
);
CREATE TABLE artifacts (
  id TEXT PRIMARY KEY,
  sha256 TEXT NOT NULL,
  bytes {{bigint}} NOT NULL,
  content_type TEXT NOT NULL,
  content {{bytes}} NOT NULL,
  created_at TEXT NOT NULL
);
`;

export const STORE_MIGRATIONS: readonly StoreMigration[] = [
  {
    name: 'initial store',
    sql: {
      sqlite: `${INITIAL_TABLES}CREATE TRIGGER canonical_events_append_only BEFORE UPDATE ON canonical_events
BEGIN
  SELECT RAISE(ABORT, 'canonical_events is append-only');
END;
${INITIAL_REST}`,
      postgres: `${INITIAL_TABLES}CREATE FUNCTION canonical_events_refuse_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'canonical_events is append-only';
END;
$$;
CREATE TRIGGER canonical_events_append_only BEFORE UPDATE ON canonical_events
FOR EACH ROW EXECUTE FUNCTION canonical_events_refuse_update();
${INITIAL_REST}`,
    },
  },
  {
    // Commands are stamped under this row's lock, so createdAt order is commit order and never ties: a
    // poller reading "commands after createdAt X" cannot miss one that commits late.
    name: 'command clock',
    sql: `
CREATE TABLE command_clock (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  last_created_at TEXT NOT NULL
);
INSERT INTO command_clock (id, last_created_at) VALUES (1, '1970-01-01T00:00:00.000Z');
`,
  },
  {
    // How a settled run's turn ended, next to the contract's four statuses: a run stopped by run.cancel is
    // completed with outcome cancelled. Runs settled before this entry get theirs from status and error
    // (the lane used to settle a cancel as failed with error "cancelled").
    name: 'run outcome',
    sql: `
ALTER TABLE runs ADD COLUMN outcome TEXT CHECK (outcome IN ('completed', 'failed', 'cancelled'));
UPDATE runs SET status = 'completed', outcome = 'cancelled', error = NULL
  WHERE status = 'failed' AND error IN ('cancelled', 'cancelled before it started');
UPDATE runs SET outcome = status WHERE outcome IS NULL AND status IN ('completed', 'failed');
`,
  },
  {
    // Frames clustered by their key (WITHOUT ROWID): one b-tree per frame instead of a rowid table plus its
    // primary-key index, so a group commit writes fewer pages. And the bounded raw sidecar: the bytes of a
    // native frame as the engine's wire carried them, inline up to a limit, else an artifact, within a per-run
    // budget (source_lanes.raw_bytes); over budget only the size and sha256 are kept.
    name: { sqlite: 'clustered source frames, raw frame sidecar', postgres: 'raw frame sidecar' },
    sql: {
      sqlite: `
CREATE TABLE source_frames_clustered (
  run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
  native_seq INTEGER NOT NULL,
  received_at TEXT NOT NULL,
  frame TEXT NOT NULL,
  PRIMARY KEY (run_id, native_seq)
) WITHOUT ROWID;
INSERT INTO source_frames_clustered (run_id, native_seq, received_at, frame)
  SELECT run_id, native_seq, received_at, frame FROM source_frames;
DROP TABLE source_frames;
ALTER TABLE source_frames_clustered RENAME TO source_frames;
ALTER TABLE source_lanes ADD COLUMN raw_bytes INTEGER NOT NULL DEFAULT 0;
CREATE TABLE source_frame_raw (
  run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
  native_seq INTEGER NOT NULL,
  bytes INTEGER NOT NULL,
  sha256 TEXT NOT NULL,
  storage TEXT NOT NULL CHECK (storage IN ('inline', 'artifact', 'omitted')),
  content BLOB,
  artifact_id TEXT,
  PRIMARY KEY (run_id, native_seq)
) WITHOUT ROWID;
`,
      postgres: `
ALTER TABLE source_lanes ADD COLUMN raw_bytes BIGINT NOT NULL DEFAULT 0;
CREATE TABLE source_frame_raw (
  run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
  native_seq BIGINT NOT NULL,
  bytes BIGINT NOT NULL,
  sha256 TEXT NOT NULL,
  storage TEXT NOT NULL CHECK (storage IN ('inline', 'artifact', 'omitted')),
  content BYTEA,
  artifact_id TEXT,
  PRIMARY KEY (run_id, native_seq)
);
`,
    },
  },
  {
    // The two tables every ingested frame writes to lose their foreign keys: PostgreSQL checks one with a
    // row-level trigger running a query per inserted row (~20% of a group commit of frames and rows). An
    // append already proves the parent under lock (the thread's head row, the run's lane row, FOR UPDATE),
    // and deleteThread deletes these rows itself, under the same locks, before the thread.
    name: 'frames and canonical events without foreign-key triggers',
    only: 'postgres',
    sql: `
ALTER TABLE canonical_events DROP CONSTRAINT IF EXISTS canonical_events_thread_id_fkey;
ALTER TABLE source_frames DROP CONSTRAINT IF EXISTS source_frames_run_id_fkey;
`,
  },
  {
    // Run leases: the process executing a run renews lease_until; any live process settles a running run
    // whose lease expired (its process is gone). status_version counts the run's status changes, so a client
    // can tell the latest run.status from a stale one. cancel_requested_at replaces the command clock: the
    // owner of a run reads the flag off its own rows instead of a global, strictly ordered command cursor.
    name: 'run leases, status version, cancel flag',
    sql: `
ALTER TABLE runs ADD COLUMN lease_until TEXT;
ALTER TABLE runs ADD COLUMN status_version INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN cancel_requested_at TEXT;
UPDATE runs SET status_version = CASE status WHEN 'queued' THEN 1 WHEN 'running' THEN 2 ELSE 3 END;
UPDATE runs SET cancel_requested_at = (
  SELECT MIN(c.created_at) FROM commands c WHERE c.run_id = runs.run_id AND c.kind = 'run.cancel'
) WHERE status IN ('queued', 'running');
CREATE INDEX runs_by_lease ON runs (status, lease_until);
`,
  },
  {
    // Append-only in the database itself, against what the UPDATE trigger missed: INSERT OR REPLACE deletes
    // the stored row and writes another (delete triggers do not fire on REPLACE unless recursive_triggers is
    // on, which a tool's connection never sets), so a BEFORE INSERT trigger refuses any row whose key is
    // stored; and DELETE is refused except inside deleteThread, which names the thread in thread_deletions
    // for the length of its transaction.
    name: {
      sqlite: 'canonical events: no replace, no delete outside deleteThread',
      postgres: 'canonical events: no delete outside deleteThread',
    },
    sql: {
      sqlite: `
CREATE TABLE thread_deletions (thread_id TEXT PRIMARY KEY);
CREATE TRIGGER canonical_events_no_replace BEFORE INSERT ON canonical_events
WHEN EXISTS (SELECT 1 FROM canonical_events WHERE thread_id = NEW.thread_id AND delivery_seq = NEW.delivery_seq)
  OR EXISTS (SELECT 1 FROM canonical_events WHERE event_id = NEW.event_id AND revision = NEW.revision)
BEGIN
  SELECT RAISE(ABORT, 'canonical_events is append-only: the row is already stored');
END;
CREATE TRIGGER canonical_events_no_delete BEFORE DELETE ON canonical_events
WHEN NOT EXISTS (SELECT 1 FROM thread_deletions WHERE thread_id = OLD.thread_id)
BEGIN
  SELECT RAISE(ABORT, 'canonical_events is append-only: DELETE refused outside deleteThread');
END;
`,
      postgres: `
CREATE TABLE thread_deletions (thread_id TEXT PRIMARY KEY);
CREATE FUNCTION canonical_events_refuse_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND EXISTS (SELECT 1 FROM thread_deletions WHERE thread_id = OLD.thread_id) THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION 'canonical_events is append-only: % refused outside deleteThread', TG_OP;
END;
$$;
CREATE TRIGGER canonical_events_no_delete BEFORE DELETE ON canonical_events
FOR EACH ROW EXECUTE FUNCTION canonical_events_refuse_delete();
CREATE TRIGGER canonical_events_no_truncate BEFORE TRUNCATE ON canonical_events
FOR EACH STATEMENT EXECUTE FUNCTION canonical_events_refuse_delete();
`,
    },
  },
  {
    // Artifacts too large to hold in memory (a tool's or a model's output past its bound, from a file) are
    // stored in chunks of ARTIFACT_CHUNK_BYTES; their artifacts row has an empty content and the chunk size (NULL: the content is inline).
    name: 'chunked artifacts',
    sql: `
ALTER TABLE artifacts ADD COLUMN chunk_bytes INTEGER;
CREATE TABLE artifact_chunks (
  id TEXT NOT NULL,
  idx INTEGER NOT NULL,
  content {{bytes}} NOT NULL,
  PRIMARY KEY (id, idx)
);
`,
  },
  {
    // How an inline artifact's content is stored: NULL as it is, 'deflate' zlib-compressed (artifact-encoding.ts).
    name: 'compressed artifacts',
    sql: 'ALTER TABLE artifacts ADD COLUMN encoding TEXT;',
  },
  {
    // How processes on one SQLite file hear each other's live signals (run status, run.canonicalized): a
    // short log each reads when another process's commit changes its data_version (sqlite/signal-log.ts).
    // PostgreSQL has NOTIFY.
    name: 'live signals between processes',
    only: 'sqlite',
    sql: `CREATE TABLE live_signals (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  thread_id TEXT NOT NULL,
  payload TEXT NOT NULL,
  origin TEXT NOT NULL
);`,
  },
  {
    // Each sync key's heads (its changes no other change to the key has seen), kept by every sync append, so a
    // sync reads the heads of the keys it writes and the session's conflicts without loading its history.
    // sync_heads.folded: changes up to it are in the index; the ones stored before this entry are folded in
    // by the first sync that reads the session (repos/sync-heads.ts). Keys sort by their bytes on both
    // databases (PostgreSQL's "C" collation), the order conflicts are paged in. sync_changes_by_writer: the
    // first arrival among a writer's versions past a client's vector entry, read from the index alone.
    name: 'sync key heads',
    sql: {
      sqlite: syncKeyHeads(''),
      postgres: syncKeyHeads(' COLLATE "C"'),
    },
  },
  FRAME_SIGNATURES,
];

function syncKeyHeads(byteOrder: string): string {
  return `
CREATE TABLE sync_key_heads (
  session_id TEXT NOT NULL,
  key TEXT${byteOrder} NOT NULL,
  client_id TEXT NOT NULL,
  version INTEGER NOT NULL,
  PRIMARY KEY (session_id, key, client_id, version)
);
ALTER TABLE sync_heads ADD COLUMN folded {{bigint}} NOT NULL DEFAULT 0;
CREATE INDEX sync_changes_by_writer ON sync_changes (session_id, client_id, version, server_seq);
`;
}

const forDialect = <T>(value: T | Record<Dialect, T>, dialect: Dialect): T =>
  typeof value === 'object' && value !== null && dialect in value
    ? (value as Record<Dialect, T>)[dialect]
    : (value as T);

/** One dialect's migration list: the entries for it, each script rendered for it. */
export function storeMigrations(dialect: Dialect): readonly Migration[] {
  return STORE_MIGRATIONS.filter((m) => m.only === undefined || m.only === dialect).map((m) => ({
    name: forDialect(m.name, dialect),
    sql: renderDdl(forDialect(m.sql, dialect), dialect),
  }));
}
