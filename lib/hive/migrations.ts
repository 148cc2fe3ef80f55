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
  // 6: statistics kept as runs change, inside the same transaction (triggers), so `/stats` reads a
  // few rows at any number of runs: per-status totals, durations by 1024 ms bucket and by exact value
  // (an exact median from two short scans), failure groups, and the hive's run count. Only live runs
  // count, as before. The indexes the old scans needed go.
  `
  CREATE TABLE run_totals (
    harness_id TEXT NOT NULL, harness_dir TEXT NOT NULL, status TEXT NOT NULL,
    n INTEGER NOT NULL, cost REAL NOT NULL, turns INTEGER NOT NULL,
    PRIMARY KEY (harness_id, harness_dir, status)
  ) WITHOUT ROWID;
  CREATE TABLE run_duration_buckets (
    harness_id TEXT NOT NULL, harness_dir TEXT NOT NULL, bucket INTEGER NOT NULL, n INTEGER NOT NULL,
    PRIMARY KEY (harness_id, harness_dir, bucket)
  ) WITHOUT ROWID;
  CREATE TABLE run_durations (
    harness_id TEXT NOT NULL, harness_dir TEXT NOT NULL, duration_ms INTEGER NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (harness_id, harness_dir, duration_ms)
  ) WITHOUT ROWID;
  CREATE TABLE run_failure_groups (
    harness_id TEXT NOT NULL, harness_dir TEXT NOT NULL, signature TEXT NOT NULL,
    n INTEGER NOT NULL, last_run_id TEXT NOT NULL, last_ended_at TEXT,
    PRIMARY KEY (harness_id, harness_dir, signature)
  ) WITHOUT ROWID;
  CREATE INDEX run_failure_groups_rank
    ON run_failure_groups(harness_id, harness_dir, n DESC, last_run_id DESC);
  CREATE TABLE hive_counters (name TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID;

  INSERT INTO run_totals
    SELECT harness_id, harness_dir, status, count(*), total(cost_usd), sum(turns)
    FROM runs WHERE live = 1 GROUP BY harness_id, harness_dir, status;
  INSERT INTO run_duration_buckets
    SELECT harness_id, harness_dir, duration_ms >> 10, count(*)
    FROM runs WHERE live = 1 AND duration_ms IS NOT NULL GROUP BY 1, 2, 3;
  INSERT INTO run_durations
    SELECT harness_id, harness_dir, duration_ms, count(*)
    FROM runs WHERE live = 1 AND duration_ms IS NOT NULL GROUP BY 1, 2, 3;
  INSERT INTO run_failure_groups
    SELECT harness_id, harness_dir, failure_signature, count(*), max(run_id), max(ended_at)
    FROM runs WHERE live = 1 AND failure_signature IS NOT NULL GROUP BY 1, 2, 3;
  INSERT INTO hive_counters VALUES ('runs', (SELECT count(*) FROM runs));

  CREATE TRIGGER runs_count_insert AFTER INSERT ON runs BEGIN
    UPDATE hive_counters SET n = n + 1 WHERE name = 'runs';
  END;
  CREATE TRIGGER runs_count_delete AFTER DELETE ON runs BEGIN
    UPDATE hive_counters SET n = n - 1 WHERE name = 'runs';
  END;

  CREATE TRIGGER runs_stats_add AFTER INSERT ON runs WHEN NEW.live = 1 BEGIN
    INSERT INTO run_totals VALUES
      (NEW.harness_id, NEW.harness_dir, NEW.status, 1, NEW.cost_usd, NEW.turns)
      ON CONFLICT DO UPDATE SET n = n + 1, cost = cost + excluded.cost, turns = turns + excluded.turns;
    INSERT INTO run_duration_buckets
      SELECT NEW.harness_id, NEW.harness_dir, NEW.duration_ms >> 10, 1 WHERE NEW.duration_ms IS NOT NULL
      ON CONFLICT DO UPDATE SET n = n + 1;
    INSERT INTO run_durations
      SELECT NEW.harness_id, NEW.harness_dir, NEW.duration_ms, 1 WHERE NEW.duration_ms IS NOT NULL
      ON CONFLICT DO UPDATE SET n = n + 1;
    INSERT INTO run_failure_groups
      SELECT NEW.harness_id, NEW.harness_dir, NEW.failure_signature, 1, NEW.run_id, NEW.ended_at
      WHERE NEW.failure_signature IS NOT NULL
      ON CONFLICT DO UPDATE SET n = n + 1, last_run_id = max(last_run_id, excluded.last_run_id),
        last_ended_at = max(coalesce(last_ended_at, excluded.last_ended_at),
                            coalesce(excluded.last_ended_at, last_ended_at));
  END;

  CREATE TRIGGER runs_stats_update_new
    AFTER UPDATE OF harness_id, harness_dir, status, cost_usd, turns, duration_ms, failure_signature,
      ended_at, run_id, live ON runs WHEN NEW.live = 1 BEGIN
    INSERT INTO run_totals VALUES
      (NEW.harness_id, NEW.harness_dir, NEW.status, 1, NEW.cost_usd, NEW.turns)
      ON CONFLICT DO UPDATE SET n = n + 1, cost = cost + excluded.cost, turns = turns + excluded.turns;
    INSERT INTO run_duration_buckets
      SELECT NEW.harness_id, NEW.harness_dir, NEW.duration_ms >> 10, 1 WHERE NEW.duration_ms IS NOT NULL
      ON CONFLICT DO UPDATE SET n = n + 1;
    INSERT INTO run_durations
      SELECT NEW.harness_id, NEW.harness_dir, NEW.duration_ms, 1 WHERE NEW.duration_ms IS NOT NULL
      ON CONFLICT DO UPDATE SET n = n + 1;
    INSERT INTO run_failure_groups
      SELECT NEW.harness_id, NEW.harness_dir, NEW.failure_signature, 1, NEW.run_id, NEW.ended_at
      WHERE NEW.failure_signature IS NOT NULL
      ON CONFLICT DO UPDATE SET n = n + 1, last_run_id = max(last_run_id, excluded.last_run_id),
        last_ended_at = max(coalesce(last_ended_at, excluded.last_ended_at),
                            coalesce(excluded.last_ended_at, last_ended_at));
  END;

  -- A run's old contribution is taken away. Whichever of the two update triggers runs first, a failure
  -- group the run leaves stays exact (an emptied group goes, its newest run is found again); that is
  -- rare, since a run gets its signature when it finishes.
  CREATE TRIGGER runs_stats_remove AFTER DELETE ON runs WHEN OLD.live = 1 BEGIN
    UPDATE run_totals SET n = n - 1, cost = cost - OLD.cost_usd, turns = turns - OLD.turns
      WHERE harness_id = OLD.harness_id AND harness_dir = OLD.harness_dir AND status = OLD.status;
    UPDATE run_duration_buckets SET n = n - 1
      WHERE harness_id = OLD.harness_id AND harness_dir = OLD.harness_dir
        AND bucket = OLD.duration_ms >> 10;
    UPDATE run_durations SET n = n - 1
      WHERE harness_id = OLD.harness_id AND harness_dir = OLD.harness_dir
        AND duration_ms = OLD.duration_ms;
    UPDATE run_failure_groups SET n = n - 1
      WHERE harness_id = OLD.harness_id AND harness_dir = OLD.harness_dir
        AND signature = OLD.failure_signature;
    DELETE FROM run_failure_groups
      WHERE harness_id = OLD.harness_id AND harness_dir = OLD.harness_dir
        AND signature = OLD.failure_signature AND n <= 0;
    UPDATE run_failure_groups SET
      last_run_id = (SELECT max(run_id) FROM runs r WHERE r.harness_id = OLD.harness_id
        AND r.harness_dir = OLD.harness_dir AND r.live = 1 AND r.failure_signature = OLD.failure_signature),
      last_ended_at = (SELECT max(ended_at) FROM runs r WHERE r.harness_id = OLD.harness_id
        AND r.harness_dir = OLD.harness_dir AND r.live = 1 AND r.failure_signature = OLD.failure_signature)
      WHERE harness_id = OLD.harness_id AND harness_dir = OLD.harness_dir
        AND signature = OLD.failure_signature;
  END;
  CREATE TRIGGER runs_stats_update_old
    AFTER UPDATE OF harness_id, harness_dir, status, cost_usd, turns, duration_ms, failure_signature,
      ended_at, run_id, live ON runs WHEN OLD.live = 1 BEGIN
    UPDATE run_totals SET n = n - 1, cost = cost - OLD.cost_usd, turns = turns - OLD.turns
      WHERE harness_id = OLD.harness_id AND harness_dir = OLD.harness_dir AND status = OLD.status;
    UPDATE run_duration_buckets SET n = n - 1
      WHERE harness_id = OLD.harness_id AND harness_dir = OLD.harness_dir
        AND bucket = OLD.duration_ms >> 10;
    UPDATE run_durations SET n = n - 1
      WHERE harness_id = OLD.harness_id AND harness_dir = OLD.harness_dir
        AND duration_ms = OLD.duration_ms;
    UPDATE run_failure_groups SET n = n - 1
      WHERE harness_id = OLD.harness_id AND harness_dir = OLD.harness_dir
        AND signature = OLD.failure_signature;
    DELETE FROM run_failure_groups
      WHERE harness_id = OLD.harness_id AND harness_dir = OLD.harness_dir
        AND signature = OLD.failure_signature AND n <= 0;
    UPDATE run_failure_groups SET
      last_run_id = (SELECT max(run_id) FROM runs r WHERE r.harness_id = OLD.harness_id
        AND r.harness_dir = OLD.harness_dir AND r.live = 1 AND r.failure_signature = OLD.failure_signature),
      last_ended_at = (SELECT max(ended_at) FROM runs r WHERE r.harness_id = OLD.harness_id
        AND r.harness_dir = OLD.harness_dir AND r.live = 1 AND r.failure_signature = OLD.failure_signature)
      WHERE harness_id = OLD.harness_id AND harness_dir = OLD.harness_dir
        AND signature = OLD.failure_signature;
  END;

  DROP INDEX runs_harness_totals;
  DROP INDEX runs_harness_duration;
  `,
  // 7: a change counter for the statistics: any write to runs, and any harness added or removed,
  // moves it, so a server can answer `/stats` from its last answer while the counter stands still.
  `
  INSERT INTO hive_counters VALUES ('stats_changes', 0);
  CREATE TRIGGER stats_changes_run_insert AFTER INSERT ON runs BEGIN
    UPDATE hive_counters SET n = n + 1 WHERE name = 'stats_changes';
  END;
  CREATE TRIGGER stats_changes_run_update AFTER UPDATE ON runs BEGIN
    UPDATE hive_counters SET n = n + 1 WHERE name = 'stats_changes';
  END;
  CREATE TRIGGER stats_changes_run_delete AFTER DELETE ON runs BEGIN
    UPDATE hive_counters SET n = n + 1 WHERE name = 'stats_changes';
  END;
  CREATE TRIGGER stats_changes_harness_insert AFTER INSERT ON harnesses BEGIN
    UPDATE hive_counters SET n = n + 1 WHERE name = 'stats_changes';
  END;
  CREATE TRIGGER stats_changes_harness_delete AFTER DELETE ON harnesses BEGIN
    UPDATE hive_counters SET n = n + 1 WHERE name = 'stats_changes';
  END;
  `,
  // 8: two indexes hold only the runs their queries look at, so a run that succeeds does not write
  // them: runs by failure signature only those with a signature (\`failure_signature = ?\` implies
  // it), the version's durations only finished live runs (the median reads \`duration_ms IS NOT
  // NULL\`). Fewer index pages per run in every run's two writes.
  `
  DROP INDEX runs_harness_signature;
  CREATE INDEX runs_harness_signature
    ON runs(harness_id, harness_dir, failure_signature, run_id, ended_at)
    WHERE failure_signature IS NOT NULL;
  DROP INDEX runs_version_duration;
  CREATE INDEX runs_version_duration ON runs(harness_id, harness_dir, spec_version, duration_ms)
    WHERE live = 1 AND duration_ms IS NOT NULL;
  `,
  // 9: runs by status hold finished runs only. A running run's entry was written when the run
  // started and taken out when it finished, from the middle of the index, where the emptied page
  // was rebalanced with its neighbours: five of the finishing write's thirteen pages. Running runs
  // are found by \`runs_running\`; a query by another status says \`status != 'running'\` too, so that
  // it can use this index.
  `
  DROP INDEX runs_harness_status;
  CREATE INDEX runs_harness_status ON runs(harness_id, harness_dir, status, run_id)
    WHERE status != 'running';
  `,
  // 10: the same for runs by spec version, whose figures count finished runs (a version's running
  // runs are counted from \`runs_running\`): a run's start writes nothing here, its end one entry.
  `
  DROP INDEX runs_harness_version;
  CREATE INDEX runs_harness_version
    ON runs(harness_id, harness_dir, spec_version, live, status, cost_usd, turns)
    WHERE status != 'running';
  `,
  // 11: the trace folders the hive knows, one row each, so the folders inside a harness are found
  // by a range on the key (\`folder >= dir || '/' AND folder < dir || '0'\`, '0' being the character
  // after '/') instead of a scan of every run's \`trace_path\`: every run reads them when it is
  // prepared (its file tools and its code refuse them all, not only today's \`logging.trace_dir\`).
  // A run's folder is its \`trace_path\` less \`/<run_id>.jsonl\`; a run in a folder already known
  // writes nothing (INSERT OR IGNORE on a table of a few rows). A folder stays known when its runs are
  // deleted: the journals may still be there.
  `
  CREATE TABLE trace_folders (folder TEXT PRIMARY KEY) WITHOUT ROWID;
  INSERT OR IGNORE INTO trace_folders
    SELECT substr(trace_path, 1, length(trace_path) - length(run_id) - 7) FROM runs
    WHERE substr(trace_path, -length(run_id) - 7) = '/' || run_id || '.jsonl';
  CREATE TRIGGER trace_folders_run_insert AFTER INSERT ON runs
    WHEN substr(NEW.trace_path, -length(NEW.run_id) - 7) = '/' || NEW.run_id || '.jsonl' BEGIN
    INSERT OR IGNORE INTO trace_folders
      VALUES (substr(NEW.trace_path, 1, length(NEW.trace_path) - length(NEW.run_id) - 7));
  END;
  `,
  // 12: where each fork came from, recorded when the fork is made here (\`forkRun\`): its folder, its
  // id, its parent, the run and the model call it re-enters at. A resume replays only what this
  // record says; a \`fork\` block in a folder the hive never forked (copied in, found by a scan) is
  // not a record. Forks made before are taken as the catalog has them (\`is_fork = 1\`, their
  // parent): their run and seq come from their first resumed run where there is one, else they are
  // bound by the first resume after this migration. Of two rows with one folder, the newest wins.
  `
  CREATE TABLE fork_origins (
    root_path TEXT PRIMARY KEY,
    harness_id TEXT NOT NULL,
    parent_id TEXT NOT NULL,
    run_id TEXT,
    at INTEGER,
    created_at TEXT NOT NULL
  ) WITHOUT ROWID;
  INSERT OR REPLACE INTO fork_origins (root_path, harness_id, parent_id, run_id, at, created_at)
    SELECT h.root_path, h.id, h.parent_id, r.parent_run_id, r.reentry_seq, h.created_at
    FROM harnesses h
    LEFT JOIN runs r ON r.run_id = (
      SELECT min(run_id) FROM runs
      WHERE harness_id = h.id AND harness_dir = h.root_path AND reentry_seq IS NOT NULL)
    WHERE h.is_fork = 1 AND h.parent_id IS NOT NULL
    ORDER BY h.updated_at;
  `,
  // 13: threads — durable conversations with one harness. A thread is owned by the key (or the
  // local face) that made it; its turns keep each run's whole input and, once it has ended, its
  // whole output, so a run's history is read from the thread's newest turns alone (never from the
  // journals). \`live_*\` is the thread's busy lock: the run holding it and the process that took it
  // (pid and start time), so a lock left by a process that died is known to be free again; every
  // process sharing the hive sees it.
  `
  CREATE TABLE threads (
    thread_id TEXT PRIMARY KEY,
    harness_id TEXT NOT NULL,
    harness_dir TEXT NOT NULL,
    owner TEXT NOT NULL,
    metadata TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    turns INTEGER NOT NULL DEFAULT 0,
    live_run_id TEXT,
    live_pid INTEGER,
    live_start TEXT
  ) WITHOUT ROWID;
  CREATE INDEX threads_harness ON threads(harness_id, harness_dir, thread_id);
  CREATE INDEX threads_owner ON threads(harness_id, harness_dir, owner, thread_id);
  CREATE TABLE thread_turns (
    thread_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    run_id TEXT NOT NULL,
    input TEXT NOT NULL,
    output TEXT,
    PRIMARY KEY (thread_id, seq)
  ) WITHOUT ROWID;
  CREATE INDEX thread_turns_run ON thread_turns(run_id);
  ALTER TABLE runs ADD COLUMN thread_id TEXT;
  CREATE INDEX runs_thread ON runs(thread_id, run_id) WHERE thread_id IS NOT NULL;
  `,
  // 14: tool approvals — a request for each call of a tool \`approvals.tools\` names, kept until a
  // person (or the clock) decides it, so a decision survives the process: a run stopped while it
  // waited is taken up again from its journal when its request is approved. \`requested_by\` is who
  // started the run (a key may not decide its own run's requests); \`resumed_run_id\` the run that took
  // it up. A decision is one conditional update (\`status = 'pending'\`), so it is made once however
  // many processes race.
  `
  CREATE TABLE approvals (
    approval_id TEXT PRIMARY KEY,
    run_id TEXT NOT NULL,
    harness_id TEXT NOT NULL,
    harness_dir TEXT NOT NULL,
    call_id TEXT NOT NULL,
    tool TEXT NOT NULL,
    arguments TEXT NOT NULL,
    arguments_hash TEXT NOT NULL,
    turn INTEGER NOT NULL,
    status TEXT NOT NULL DEFAULT 'pending',
    requested_by TEXT,
    requested_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    decided_at TEXT,
    decided_by TEXT,
    reason TEXT,
    resumed_run_id TEXT
  ) WITHOUT ROWID;
  CREATE INDEX approvals_harness ON approvals(harness_id, harness_dir, status, approval_id);
  CREATE INDEX approvals_run ON approvals(run_id);
  `,
  // 15: hand-offs to remote (A2A) peers — one row per hand-off a run of this hive made to a peer
  // named by its URL: the remote task id (null when none was made), how it ended here and what it
  // cost as counted. A remote peer's fitness is read from these rows, as a local peer's is from its
  // runs.
  `
  CREATE TABLE remote_handoffs (
    handoff_id TEXT PRIMARY KEY,
    url TEXT NOT NULL,
    parent_run_id TEXT NOT NULL,
    task_id TEXT,
    status TEXT NOT NULL,
    cost_usd REAL NOT NULL,
    ended_at TEXT NOT NULL
  ) WITHOUT ROWID;
  CREATE INDEX remote_handoffs_url ON remote_handoffs(url, status);
  CREATE INDEX remote_handoffs_parent ON remote_handoffs(parent_run_id);
  `,
  // 16: spec versions by harness id alone, newest first: a process compares its folder's version with
  // the newest any folder of its id recorded (\`spec_drift\` in \`/health\`, docs/deploy.md).
  `
  CREATE INDEX spec_versions_id ON spec_versions(harness_id, seq);
  `,
  // 17: indexes written on every thread turn (or new thread) that no statement reads: a thread's turn
  // is found by its thread's key (its newest turns first), never by its run alone; no statement looks
  // runs up by thread; a harness's threads are listed by \`threads_harness\` with or without an owner
  // (docs/performance.md, threads).
  `
  DROP INDEX thread_turns_run;
  DROP INDEX runs_thread;
  DROP INDEX threads_owner;
  `,
  // 18: a thread's turn is its run's own row: its number in the thread, its whole input and, once
  // it has ended, its whole output (read by \`runs_thread_turns\`, the thread's key then its turn).
  // The thread follows its runs by triggers, in the statement that records each: a run's start counts
  // the turn and takes the thread's lock, its end lets the lock go (lib/hive/threads.ts). A turn then
  // costs its run's two writes, no more (docs/performance.md, Threads).
  `
  ALTER TABLE runs ADD COLUMN thread_seq INTEGER;
  ALTER TABLE runs ADD COLUMN thread_input TEXT;
  ALTER TABLE runs ADD COLUMN thread_output TEXT;
  UPDATE runs SET thread_seq = t.seq, thread_input = t.input, thread_output = t.output
    FROM thread_turns t WHERE t.run_id = runs.run_id;
  DROP TABLE thread_turns;
  CREATE INDEX runs_thread_turns ON runs(thread_id, thread_seq) WHERE thread_id IS NOT NULL;
  CREATE TRIGGER runs_thread_start AFTER INSERT ON runs WHEN NEW.thread_id IS NOT NULL BEGIN
    UPDATE threads SET turns = turns + 1, updated_at = coalesce(NEW.ended_at, NEW.started_at),
      live_run_id = CASE WHEN NEW.status = 'running' THEN NEW.run_id ELSE live_run_id END,
      live_pid = CASE WHEN NEW.status = 'running' THEN NEW.owner_pid ELSE live_pid END,
      live_start = CASE WHEN NEW.status = 'running' THEN NEW.owner_start ELSE live_start END
    WHERE thread_id = NEW.thread_id;
  END;
  CREATE TRIGGER runs_thread_end AFTER UPDATE OF status ON runs
  WHEN NEW.thread_id IS NOT NULL AND OLD.status = 'running' AND NEW.status != 'running' BEGIN
    UPDATE threads SET updated_at = coalesce(NEW.ended_at, updated_at),
      live_pid = CASE WHEN live_run_id = NEW.run_id THEN NULL ELSE live_pid END,
      live_start = CASE WHEN live_run_id = NEW.run_id THEN NULL ELSE live_start END,
      live_run_id = CASE WHEN live_run_id = NEW.run_id THEN NULL ELSE live_run_id END
    WHERE thread_id = NEW.thread_id;
  END;
  `,
  // 19: a turn that starts without reading its thread first (lib/hive/runs.ts) is one plain INSERT
  // whose turn number is read from the thread as this process knew it; a thread that changed has no
  // number to give, and a thread's run without a number is refused (\`thread_moved\`) before it is
  // recorded. An \`INSERT … SELECT\` did the same, but SQLite runs a SELECT into a table with
  // triggers through a temporary table of its own, a quarter of the statement's time
  // (docs/performance.md, Threads). PostgreSQL keeps the \`INSERT … SELECT\`, which locks the row.
  `
  CREATE TRIGGER runs_thread_seq BEFORE INSERT ON runs
  WHEN NEW.thread_id IS NOT NULL AND NEW.thread_seq IS NULL BEGIN
    SELECT RAISE(ABORT, 'thread_moved');
  END;
  `,
  // 20: a turn's end no longer writes its thread's row: the row goes on naming the turn's run, a
  // lock whose run has ended is free (lib/hive/threads.ts reads it so), and the thread's
  // \`updated_at\` is read as the later of the row's and that run's end. One page fewer in every
  // turn's end (docs/performance.md, Threads).
  `
  DROP TRIGGER runs_thread_end;
  `,
  // 21: a turn's start no longer writes its thread's row either: a thread's turn count, the run
  // holding it and its last change are read from its newest turn (by \`runs_thread_turns\`, one
  // entry), and a turn's number is its run's alone (the index is unique), so a turn started without
  // reading its thread records nothing when another run has its number. The thread's row keeps who
  // made it and the claim of a run waiting for a slot (lib/hive/threads.ts). One page fewer in
  // every turn's start (docs/performance.md, Threads).
  `
  DROP TRIGGER runs_thread_start;
  DROP INDEX runs_thread_turns;
  CREATE UNIQUE INDEX runs_thread_turns ON runs(thread_id, thread_seq) WHERE thread_id IS NOT NULL;
  ALTER TABLE threads DROP COLUMN turns;
  `,
];
