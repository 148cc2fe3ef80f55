import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { closeHives, type Hive, openHive } from "../../lib/hive/open.ts";
import { MIGRATIONS } from "../../lib/hive/migrations.ts";
import {
  finishRun,
  insertRun,
  listRuns,
  listRunsQuery,
  runFiguresByVersion,
  type RunFilter,
  versionMetrics,
} from "../../lib/hive/runs.ts";
import type { RunResult, RunStatus } from "../../lib/run_types.ts";
import { migrate } from "../../lib/sqlite/database.ts";
import { ownProcess } from "../../lib/process_identity.ts";
import { tempDir } from "../helpers/temp.ts";
import { storeHome, STORES } from "../helpers/hive_stores.ts";

const HARNESS = { id: "bot", dir: "/h/bot" };
const OTHER = { id: "bot", dir: "/elsewhere/bot" };

/** Hives made at an old version get their rows as that version's code wrote them. */
const oldHives = new WeakSet<Hive>();

function start(db: Hive, harness: typeof HARNESS, runId: string, version = "v1"): void {
  if (oldHives.has(db)) {
    db.prepare(
      `INSERT INTO runs (run_id, harness_id, harness_dir, status, input_excerpt, started_at,
         spec_version, trace_path, owner_pid, owner_start)
       VALUES (?, ?, ?, 'running', 'hi', '2026-11-23T10:00:00.000Z', ?, ?, ?, ?)`,
    ).run(
      runId,
      harness.id,
      harness.dir,
      version,
      `${harness.dir}/.framework/traces/${runId}.jsonl`,
      ownProcess().pid,
      ownProcess().start,
    );
    return;
  }
  insertRun(db, {
    run_id: runId,
    harness_id: harness.id,
    harness_dir: harness.dir,
    input: "hi",
    started_at: "2026-11-23T10:00:00.000Z",
    spec_version: version,
    trace_path: `${harness.dir}/.framework/traces/${runId}.jsonl`,
  });
}

function end(db: Hive, harness: typeof HARNESS, runId: string, status: RunStatus): void {
  const result: RunResult = {
    run_id: runId,
    harness_id: harness.id,
    status,
    output: status,
    cost_usd: 0,
    turns: 1,
    started_at: "2026-11-23T10:00:00.000Z",
    ended_at: "2026-11-23T10:00:01.000Z",
    duration_ms: 1000,
    spec_version: "v1",
    failure_signature: status === "success" ? null : `${status}:x`,
  };
  finishRun(db, result, { head_hash: "0".repeat(64), events: 2 });
}

/** Runs 00–11 of HARNESS: statuses in turn, the last two still running; two runs of OTHER. */
function seed(db: Hive): void {
  const statuses: RunStatus[] = ["success", "error", "max_turns"];
  for (let i = 0; i < 12; i++) {
    const id = `run_${String(i).padStart(2, "0")}`;
    start(db, HARNESS, id);
    if (i < 10) end(db, HARNESS, id, statuses[i % 3]!);
  }
  start(db, OTHER, "run_50");
  end(db, OTHER, "run_50", "error");
  start(db, OTHER, "run_51");
  start(db, HARNESS, "run_60", "v2");
}

function check(db: Hive): void {
  const ids = (filter: RunFilter) => listRuns(db, HARNESS, filter).map((r) => r.run_id);
  assert.deepEqual(ids({ status: "running" }), ["run_60", "run_11", "run_10"]);
  assert.deepEqual(ids({ status: "error" }), ["run_07", "run_04", "run_01"]);
  assert.deepEqual(ids({ status: "success" }), ["run_09", "run_06", "run_03", "run_00"]);
  assert.deepEqual(ids({ status: "success", before: "run_06", limit: 2 }), ["run_03", "run_00"]);
  assert.deepEqual(ids({ status: "running", before: "run_11" }), ["run_10"]);
  // Figures by version: finished runs from their index, running ones counted beside them.
  assert.deepEqual(Object.fromEntries(runFiguresByVersion(db, HARNESS)), {
    v1: { runs: 10, eval_runs: 0, running: 2, success_rate: 0.4, cost_usd: 0 },
    v2: { runs: 0, eval_runs: 0, running: 1, success_rate: null, cost_usd: null },
  });
  const v1 = versionMetrics(db, HARNESS, "v1");
  assert.deepEqual([v1.runs, v1.eval_runs, v1.success_rate, v1.p50_duration_ms], [
    10,
    0,
    0.4,
    1000,
  ]);
  assert.equal(versionMetrics(db, HARNESS, "v2").runs, 0);
  assert.deepEqual(ids({ limit: 3 }), ["run_60", "run_11", "run_10"]);
  assert.deepEqual(listRuns(db, OTHER, { status: "running" }).map((r) => r.run_id), ["run_51"]);
  // A finished run leaves the running list at once.
  end(db, HARNESS, "run_11", "success");
  assert.deepEqual(ids({ status: "running" }), ["run_60", "run_10"]);
  assert.deepEqual(ids({ status: "success", limit: 1 }), ["run_11"]);
  assert.equal(runFiguresByVersion(db, HARNESS).get("v1")!.success_rate, 5 / 11);
}

for (const store of STORES) {
  Deno.test(`runs by status and by version on ${store}: the same rows and figures`, async () => {
    await using _home = await storeHome(store);
    const db = openHive();
    seed(db);
    check(db);
  });
}

Deno.test("runs by status and by version on SQLite: the same rows and figures, each from an index", async (t) => {
  await using tmp = await tempDir();
  await t.step("a new hive", () => {
    const db = openHive(`${tmp.path}/new.db`);
    try {
      seed(db);
      check(db);
      const plan = (filter: RunFilter) => {
        const { sql, args } = listRunsQuery(HARNESS, filter);
        return (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as { detail: string }[])
          .map((r) => r.detail).join(" | ");
      };
      for (const status of ["success", "error", "max_turns"]) {
        assert.match(plan({ status }), /USING INDEX runs_harness_status/, status);
        assert.match(plan({ status, before: "run_05" }), /USING INDEX runs_harness_status/);
      }
      assert.match(plan({ status: "running" }), /USING INDEX runs_running/);
      assert.match(plan({}), /USING INDEX runs_harness /);
      for (const filter of [{}, { status: "running" }, { status: "success" }]) {
        assert.doesNotMatch(plan(filter), /SCAN runs/, JSON.stringify(filter));
      }
    } finally {
      closeHives();
    }
  });
  for (const version of [8, 9]) {
    await t.step(`a hive made at version ${version} (its running rows in the old indexes)`, () => {
      const path = `${tmp.path}/v${version}.db`;
      const old = new DatabaseSync(path);
      migrate(old, MIGRATIONS.slice(0, version));
      oldHives.add(old);
      seed(old);
      old.close();
      const db = openHive(path);
      try {
        assert.equal(
          (db.prepare("PRAGMA user_version").get() as { user_version: number }).user_version,
          MIGRATIONS.length,
        );
        check(db);
      } finally {
        closeHives();
      }
    });
  }
});
