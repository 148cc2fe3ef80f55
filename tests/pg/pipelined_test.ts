/**
 * Statements sent without waiting (lib/pg/connection.ts `send`) and the run's end that travels with
 * them: sent statements go in order before the next waited one on the same connection; a sent
 * statement that failed is kept under its tag (`settle` names it, the tag's next `send` throws it,
 * other tags are untouched); and a run's end recorded with `whole` (lib/hive/runs.ts `finishRun`)
 * is refused, writing nothing, while the hive's copy of its journal lacks lines.
 *
 * @module
 */

import assert from "node:assert/strict";
import { openPostgres } from "../../lib/pg/connection.ts";
import { openHive } from "../../lib/hive/open.ts";
import { finishRun, insertRun } from "../../lib/hive/runs.ts";
import { journalCopyFailure, journalLineSender } from "../../lib/hive/journal_lines.ts";
import type { PgConnection } from "../../lib/pg/connection.ts";
import { statement } from "../../lib/sqlite/statements.ts";
import { storeHome } from "../helpers/hive_stores.ts";

Deno.test("sent statements: in order before the next waited one, failures kept by tag", async () => {
  await using home = await storeHome("postgres");
  const db = openPostgres(home.url!);
  try {
    db.exec("CREATE TABLE t (v INTEGER PRIMARY KEY)");
    for (let i = 1; i <= 20; i++) db.send("a", "INSERT INTO t (v) VALUES ($1)", [i]);
    // The waited statement comes after every sent one on the connection.
    assert.deepEqual(db.query("SELECT count(*)::int AS n FROM t").rows, [{ n: 20 }]);
    assert.equal(db.settle("a"), undefined);

    db.send("b", "INSERT INTO t (v) VALUES ($1)", [1]); // a duplicate key: refused
    db.send("c", "INSERT INTO t (v) VALUES ($1)", [21]);
    const failed = db.settle("b");
    assert.ok(failed, "the refused statement is named by settle");
    assert.match(failed.message, /refused a statement/);
    assert.equal(db.settle("c"), undefined, "another tag is untouched");
    assert.equal(db.settle("b"), undefined, "a settled tag is forgotten");

    db.send("d", "INSERT INTO t (v) VALUES ($1)", [2]);
    db.query("SELECT 1"); // its answer is in
    assert.throws(() => db.send("d", "INSERT INTO t (v) VALUES ($1)", [22]), /refused/);
    assert.ok(db.settle("d"));
    assert.deepEqual(db.query("SELECT max(v)::int AS m FROM t").rows, [{ m: 21 }]);
  } finally {
    db.close();
  }
});

Deno.test("a run's end with `whole` is refused while the hive's copy of its journal lacks lines", async () => {
  await using _home = await storeHome("postgres");
  const db = openHive() as PgConnection;
  const run_id = "run_whole";
  insertRun(db, {
    run_id,
    harness_id: "h",
    harness_dir: "/h",
    input: "hi",
    started_at: "2026-11-25T10:00:00.000Z",
    spec_version: "v1",
    trace_path: `/h/.framework/traces/${run_id}.jsonl`,
  });
  const end = {
    run_id,
    harness_id: "h",
    status: "success" as const,
    output: "ok",
    cost_usd: 0,
    turns: 1,
    started_at: "2026-11-25T10:00:00.000Z",
    ended_at: "2026-11-25T10:00:01.000Z",
    duration_ms: 1000,
    spec_version: "v1",
    failure_signature: null,
  };
  const head = { head_hash: "0".repeat(64), events: 3 };
  const status = () =>
    (statement(db, "SELECT status FROM runs WHERE run_id = ?").get(run_id) as { status: string })
      .status;
  const sink = journalLineSender(db, run_id);
  sink(1, ['{"seq":1}', '{"seq":2}']);
  assert.equal(finishRun(db, end, head, { whole: true }), false, "two lines of three: refused");
  assert.equal(status(), "running");
  sink(3, ['{"seq":3}']);
  assert.equal(finishRun(db, end, head, { whole: true }), true);
  assert.equal(journalCopyFailure(db, run_id), undefined);
  assert.equal(status(), "success");
});
