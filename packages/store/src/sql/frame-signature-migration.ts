import type { Dialect } from '@agentlane/sql';

/** One entry of the store's migration list (store-migrations.ts); later entries live in files of their own. */
export interface StoreMigration {
  name: string | Record<Dialect, string>;
  sql: string | Record<Dialect, string>;
  only?: Dialect;
}

/**
 * Frame hashes and a lane's rewrite count, so the watermark need not read large frame text back.
 * `source_frames.frame_sha256`: the sha256 hex of the frame text, written by appendFrames for large frames
 * (NULL: small frames, rows of older builds, rows of foreign tools: their text is hashed). An UPDATE or a
 * DELETE of a frame row, which could leave a stale hash behind, bumps `source_lanes.rewrites` of its run
 * (old and new run of an UPDATE), which the signature covers. SQLite's INSERT OR REPLACE fires no delete
 * trigger, but the row it writes carries no hash unless its writer forged one, so its text is hashed: in
 * another form than a hash, which changes the signature even for the same text. PostgreSQL counts per
 * statement (one UPDATE of the lanes a statement touched, from its transition table): a thread's deletion
 * is one statement, not a function call per frame; an upsert (ON CONFLICT DO UPDATE) fires the UPDATE trigger.
 */
export const FRAME_SIGNATURES: StoreMigration = {
  name: 'frame hashes and lane rewrite counts',
  sql: {
    sqlite: `
ALTER TABLE source_frames ADD COLUMN frame_sha256 TEXT;
ALTER TABLE source_lanes ADD COLUMN rewrites INTEGER NOT NULL DEFAULT 0;
CREATE TRIGGER source_frames_rewritten AFTER UPDATE ON source_frames
BEGIN
  UPDATE source_lanes SET rewrites = rewrites + 1 WHERE run_id IN (OLD.run_id, NEW.run_id);
END;
CREATE TRIGGER source_frames_deleted AFTER DELETE ON source_frames
BEGIN
  UPDATE source_lanes SET rewrites = rewrites + 1 WHERE run_id = OLD.run_id;
END;
`,
    postgres: `
ALTER TABLE source_frames ADD COLUMN frame_sha256 TEXT;
ALTER TABLE source_lanes ADD COLUMN rewrites BIGINT NOT NULL DEFAULT 0;
CREATE FUNCTION source_frames_count_rewrites() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    UPDATE source_lanes SET rewrites = rewrites + 1
      WHERE run_id IN (SELECT run_id FROM old_frames UNION SELECT run_id FROM new_frames);
  ELSE
    UPDATE source_lanes SET rewrites = rewrites + 1 WHERE run_id IN (SELECT run_id FROM old_frames);
  END IF;
  RETURN NULL;
END;
$$;
CREATE TRIGGER source_frames_rewritten AFTER UPDATE ON source_frames
REFERENCING OLD TABLE AS old_frames NEW TABLE AS new_frames
FOR EACH STATEMENT EXECUTE FUNCTION source_frames_count_rewrites();
CREATE TRIGGER source_frames_deleted AFTER DELETE ON source_frames
REFERENCING OLD TABLE AS old_frames
FOR EACH STATEMENT EXECUTE FUNCTION source_frames_count_rewrites();
`,
  },
};
