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
  // 2: runs and proposals.
  `
  CREATE TABLE runs (
    run_id TEXT PRIMARY KEY,
    harness_id TEXT NOT NULL,
    status TEXT NOT NULL,
    input_excerpt TEXT NOT NULL DEFAULT '',
    output_excerpt TEXT NOT NULL DEFAULT '',
    cost_usd REAL NOT NULL DEFAULT 0,
    turns INTEGER NOT NULL DEFAULT 0,
    started_at TEXT NOT NULL,
    ended_at TEXT,
    duration_ms INTEGER,
    spec_version TEXT NOT NULL,
    trace_path TEXT NOT NULL,
    head_hash TEXT,
    events INTEGER NOT NULL DEFAULT 0,
    parent_run_id TEXT,
    failure_signature TEXT,
    error TEXT,
    owner_pid INTEGER,
    owner_start TEXT
  );
  CREATE INDEX runs_harness ON runs(harness_id, run_id);
  CREATE INDEX runs_harness_status ON runs(harness_id, status, run_id);
  CREATE INDEX runs_harness_totals ON runs(harness_id, status, cost_usd, turns);
  CREATE INDEX runs_harness_duration ON runs(harness_id, duration_ms);
  CREATE INDEX runs_harness_signature ON runs(harness_id, failure_signature, run_id, ended_at);
  CREATE INDEX runs_harness_failures ON runs(harness_id, run_id) WHERE failure_signature IS NOT NULL;
  CREATE INDEX runs_running ON runs(status) WHERE status = 'running';
  CREATE INDEX runs_parent ON runs(parent_run_id) WHERE parent_run_id IS NOT NULL;
  CREATE TABLE proposals (
    id TEXT PRIMARY KEY,
    harness_id TEXT NOT NULL,
    status TEXT NOT NULL,
    trigger TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    decided_at TEXT,
    reason TEXT,
    record TEXT NOT NULL
  );
  CREATE INDEX proposals_harness ON proposals(harness_id, status, created_at DESC);
  `,
  // 3: runs, proposals and spec versions are bound to the harness's folder as well as its id, so a
  // copied folder that kept the id does not share them. Rows written before are given the folder
  // their journal lies in (the default trace folder), else the catalog's folder.
  `
  ALTER TABLE runs ADD COLUMN harness_dir TEXT NOT NULL DEFAULT '';
  ALTER TABLE proposals ADD COLUMN harness_dir TEXT NOT NULL DEFAULT '';
  ALTER TABLE spec_versions ADD COLUMN harness_dir TEXT NOT NULL DEFAULT '';
  UPDATE runs SET harness_dir = CASE
    WHEN trace_path LIKE '%/.framework/traces/' || run_id || '.jsonl'
      THEN substr(trace_path, 1, length(trace_path) - length('/.framework/traces/' || run_id || '.jsonl'))
    ELSE coalesce((SELECT root_path FROM harnesses h WHERE h.id = runs.harness_id), '')
  END;
  UPDATE proposals SET harness_dir =
    coalesce((SELECT root_path FROM harnesses h WHERE h.id = proposals.harness_id), '');
  UPDATE spec_versions SET harness_dir =
    coalesce((SELECT root_path FROM harnesses h WHERE h.id = spec_versions.harness_id), '');
  DROP INDEX runs_harness;
  DROP INDEX runs_harness_status;
  DROP INDEX runs_harness_totals;
  DROP INDEX runs_harness_duration;
  DROP INDEX runs_harness_signature;
  DROP INDEX runs_harness_failures;
  CREATE INDEX runs_harness ON runs(harness_id, harness_dir, run_id);
  CREATE INDEX runs_harness_status ON runs(harness_id, harness_dir, status, run_id);
  CREATE INDEX runs_harness_totals ON runs(harness_id, harness_dir, status, cost_usd, turns);
  CREATE INDEX runs_harness_duration ON runs(harness_id, harness_dir, duration_ms);
  CREATE INDEX runs_harness_signature
    ON runs(harness_id, harness_dir, failure_signature, run_id, ended_at);
  CREATE INDEX runs_harness_failures ON runs(harness_id, harness_dir, run_id)
    WHERE failure_signature IS NOT NULL;
  DROP INDEX proposals_harness;
  CREATE INDEX proposals_harness ON proposals(harness_id, harness_dir, status, created_at DESC);
  DROP INDEX spec_versions_harness;
  DROP INDEX spec_versions_version;
  CREATE INDEX spec_versions_harness ON spec_versions(harness_id, harness_dir, seq);
  CREATE INDEX spec_versions_version ON spec_versions(harness_id, harness_dir, version);
  CREATE INDEX spec_versions_dir ON spec_versions(harness_dir, seq);
  ALTER TABLE proposals ADD COLUMN applied INTEGER NOT NULL DEFAULT 0;
  UPDATE proposals SET applied = 1 WHERE status IN ('applied', 'partially_applied');
  CREATE TABLE harness_duplicates (
    root_path TEXT PRIMARY KEY,
    id TEXT NOT NULL,
    owner_path TEXT NOT NULL,
    seen_at TEXT NOT NULL
  );
  `,
  // 4: lineage. A resumed fork's run records the seq it re-entered its parent run at (delegated runs
  // leave it null); children are found by their parent run (index runs_parent, since migration 1).
  `
  ALTER TABLE runs ADD COLUMN reentry_seq INTEGER;
  `,
  // 5: evaluations. Eval runs are ordinary runs tagged with their eval; `live = 0` keeps them out of
  // the harness's live-run fitness (stats, evidence, automatic proposals) unless counted as live.
  `
  ALTER TABLE runs ADD COLUMN eval_id TEXT;
  ALTER TABLE runs ADD COLUMN live INTEGER NOT NULL DEFAULT 1;
  CREATE INDEX runs_eval ON runs(eval_id) WHERE eval_id IS NOT NULL;
  CREATE INDEX runs_harness_version
    ON runs(harness_id, harness_dir, spec_version, live, status, cost_usd, turns);
  CREATE INDEX runs_version_duration ON runs(harness_id, harness_dir, spec_version, duration_ms)
    WHERE live = 1;
  CREATE INDEX runs_version_signature
    ON runs(harness_id, harness_dir, spec_version, failure_signature, run_id)
    WHERE failure_signature IS NOT NULL;
  CREATE TABLE evals (
    eval_id TEXT PRIMARY KEY,
    harness_id TEXT NOT NULL,
    harness_dir TEXT NOT NULL,
    set_name TEXT NOT NULL,
    spec_version TEXT NOT NULL,
    started_at TEXT NOT NULL,
    ended_at TEXT NOT NULL,
    pass_rate REAL NOT NULL,
    cost_usd REAL NOT NULL,
    p50_duration_ms INTEGER,
    result TEXT NOT NULL
  );
  CREATE INDEX evals_harness ON evals(harness_id, harness_dir, set_name, spec_version, started_at);
  `,
];
