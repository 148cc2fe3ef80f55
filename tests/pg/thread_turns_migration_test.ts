/**
 * PostgreSQL's migration 4 (as SQLite's 18): a hive whose threads kept their turns in a table of
 * their own has them on its runs' rows after; after migration 6 (as SQLite's 21), a thread's turns
 * are its runs' rows alone, one run a number.
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
    // Migration 6 (as SQLite's 21): the thread's row keeps no count; its turns are its runs' rows,
    // one run a number.
    const columns = db.query(
      "SELECT column_name FROM information_schema.columns WHERE table_name = 'threads'",
    ).rows.map((r) => r.column_name);
    assert.ok(!columns.includes("turns"), columns.join());
    db.exec(`
      INSERT INTO runs (run_id, harness_id, harness_dir, status, started_at, spec_version, trace_path,
        owner_pid, owner_start, thread_id, thread_seq, thread_input)
        VALUES ('run_3', 'bot', '/h/bot', 'running', 't4', 'v', '/h/bot/run_3.jsonl', 42, 'm',
          'thr_a', 3, 'q3');
    `);
    const newest = db.query(
      "SELECT run_id, thread_seq::int AS seq FROM runs WHERE thread_id = 'thr_a' ORDER BY thread_seq DESC LIMIT 1",
    ).rows[0];
    assert.deepEqual({ ...newest }, { run_id: "run_3", seq: 3 });
    assert.throws(
      () =>
        db.exec(`
          INSERT INTO runs (run_id, harness_id, harness_dir, status, started_at, spec_version,
            trace_path, thread_id, thread_seq, thread_input)
            VALUES ('run_y', 'bot', '/h/bot', 'running', 't5', 'v', '/h/bot/run_y.jsonl', 'thr_a', 3,
              'q');
        `),
      /duplicate key|unique/i,
    );
  } finally {
    db.close();
  }
});
