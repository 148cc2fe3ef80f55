/**
 * PostgreSQL's migration 4 (as SQLite's 18): a hive whose threads kept their turns in a table of
 * their own has them on its runs' rows after, and the thread follows its runs by the trigger.
 *
 * @module
 */

import assert from "node:assert/strict";
import { PG_MIGRATIONS } from "../../lib/hive/pg_migrations.ts";
import { openPostgres } from "../../lib/pg/connection.ts";
import { migratePostgres } from "../../lib/pg/migrate.ts";
import { startTestCluster } from "../helpers/postgres.ts";
import { THREAD_TURNS_BEFORE_18 } from "../helpers/thread_turns.ts";

Deno.test("PostgreSQL migration 4 moves a thread's turns onto its runs' rows", async () => {
  await using pg = await startTestCluster();
  const db = openPostgres(await pg.createDatabase());
  try {
    // The schema as it was before the migration that moved the turns.
    const moved = PG_MIGRATIONS.findIndex((m) => m.includes("DROP TABLE thread_turns"));
    migratePostgres(db, PG_MIGRATIONS.slice(0, moved));
    db.exec(THREAD_TURNS_BEFORE_18);
    migratePostgres(db, PG_MIGRATIONS);
    const rows = db.query(
      "SELECT run_id, thread_seq::int AS seq, thread_input, thread_output FROM runs ORDER BY run_id",
    ).rows;
    assert.deepEqual(rows.map((r) => ({ ...r })), [
      { run_id: "run_1", seq: 1, thread_input: "q1", thread_output: "a1" },
      { run_id: "run_2", seq: 2, thread_input: "q2", thread_output: "" },
      { run_id: "run_x", seq: null, thread_input: null, thread_output: null },
    ]);
    assert.equal(db.query("SELECT to_regclass('thread_turns') AS t").rows[0]!.t, null);
    const thread = () => ({
      ...db.query("SELECT turns::int AS turns, updated_at, live_run_id FROM threads").rows[0],
    });
    db.exec(`
      INSERT INTO runs (run_id, harness_id, harness_dir, status, started_at, spec_version, trace_path,
        owner_pid, owner_start, thread_id, thread_seq, thread_input)
        VALUES ('run_3', 'bot', '/h/bot', 'running', 't4', 'v', '/h/bot/run_3.jsonl', 42, 'm',
          'thr_a', 3, 'q3');
    `);
    assert.deepEqual(thread(), { turns: 3, updated_at: "t4", live_run_id: "run_3" });
    db.exec(`UPDATE runs SET status = 'success', ended_at = 't5', thread_output = 'a3'
      WHERE run_id = 'run_3'`);
    // Its end writes the run's row alone (migration 5): the thread's row goes on naming it (a lock
    // whose run has ended is free: lib/hive/threads.ts).
    assert.deepEqual(thread(), { turns: 3, updated_at: "t4", live_run_id: "run_3" });
  } finally {
    db.close();
  }
});
