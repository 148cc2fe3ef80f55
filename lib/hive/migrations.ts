/**
 * The hive's schema, as an append-only list of migrations: migration `i` moves `user_version` from
 * `i` to `i + 1`. Never edit a migration that has shipped; add a new one.
 *
 * @module
 */

/** Every migration, in order. */
export const MIGRATIONS: readonly string[] = [
  // 1: the harness catalog and spec versions.
  `
  CREATE TABLE harnesses (
    id TEXT PRIMARY KEY,
    root_path TEXT NOT NULL,
    name TEXT NOT NULL,
    is_fork INTEGER NOT NULL DEFAULT 0,
    parent_id TEXT,
    evolved INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE INDEX harnesses_root_path ON harnesses(root_path);
  CREATE INDEX harnesses_parent ON harnesses(parent_id);
  CREATE TABLE spec_versions (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    harness_id TEXT NOT NULL,
    version TEXT NOT NULL,
    yaml TEXT NOT NULL,
    source TEXT NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE INDEX spec_versions_harness ON spec_versions(harness_id, seq);
  CREATE INDEX spec_versions_version ON spec_versions(harness_id, version);
  `,
];
