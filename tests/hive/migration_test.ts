import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { closeHives, openHive } from "../../lib/hive/open.ts";
import { getThread } from "../../lib/hive/threads.ts";
import { MIGRATIONS } from "../../lib/hive/migrations.ts";
import { ownProcess } from "../../lib/process_identity.ts";
import { migrate } from "../../lib/sqlite/database.ts";
import { traceFoldersWithin } from "../../lib/hive/runs.ts";
import { tempDir } from "../helpers/temp.ts";
import { THREAD_TURNS_BEFORE_18 } from "../helpers/thread_turns.ts";

Deno.test("migration 3 binds rows written before it to their harness folder", async () => {
  await using tmp = await tempDir();
  const path = `${tmp.path}/hive.db`;
  const old = new DatabaseSync(path);
  migrate(old, MIGRATIONS.slice(0, 2));
  old.exec(`
    INSERT INTO harnesses (id, root_path, name, created_at, updated_at)
      VALUES ('bot', '/now/bot', 'Bot', 't', 't');
    INSERT INTO runs (run_id, harness_id, status, started_at, spec_version, trace_path)
      VALUES ('run_a', 'bot', 'success', 't', 'v', '/was/bot/.framework/traces/run_a.jsonl'),
             ('run_b', 'bot', 'success', 't', 'v', '/var/traces/run_b.jsonl');
    INSERT INTO proposals (id, harness_id, status, trigger, created_at, updated_at, record)
      VALUES ('prop_a', 'bot', 'applied', 'cli', 't', 't', '{}'),
             ('prop_b', 'bot', 'queued', 'cli', 't', 't', '{}');
  `);
  old.close();
  try {
    const db = openHive(path);
    const dirs = db.prepare("SELECT run_id, harness_dir FROM runs ORDER BY run_id").all();
    assert.deepEqual(dirs.map((r) => ({ ...r })), [
      { run_id: "run_a", harness_dir: "/was/bot" },
      { run_id: "run_b", harness_dir: "/now/bot" },
    ]);
    const proposals = db.prepare("SELECT id, harness_dir, applied FROM proposals ORDER BY id")
      .all();
    assert.deepEqual(proposals.map((r) => ({ ...r })), [
      { id: "prop_a", harness_dir: "/now/bot", applied: 1 },
      { id: "prop_b", harness_dir: "/now/bot", applied: 0 },
    ]);
  } finally {
    closeHives();
  }
});

Deno.test("migration 11 records the trace folders of runs written before it, and a trigger keeps them", async () => {
  await using tmp = await tempDir();
  const path = `${tmp.path}/hive.db`;
  const old = new DatabaseSync(path);
  migrate(old, MIGRATIONS.slice(0, 10));
  const insert = (runId: string, tracePath: string) =>
    old.prepare(
      `INSERT INTO runs (run_id, harness_id, harness_dir, status, started_at, spec_version, trace_path)
       VALUES (?, 'bot', '/h/bot', 'success', 't', 'v', ?)`,
    ).run(runId, tracePath);
  insert("run_a", "/h/bot/old-logs/run_a.jsonl");
  insert("run_b", "/h/bot/old-logs/run_b.jsonl");
  insert("run_c", "/h/bot/.framework/traces/run_c.jsonl");
  insert("run_d", "/h/bot2/logs/run_d.jsonl"); // a sibling whose name starts like bot's
  insert("run_e", "/var/traces/run_e.jsonl");
  insert("run_f", "/t"); // not a journal path: no folder
  old.close();
  try {
    const db = openHive(path);
    assert.deepEqual(
      db.prepare("SELECT folder FROM trace_folders ORDER BY folder").all().map((r) => r.folder),
      ["/h/bot/.framework/traces", "/h/bot/old-logs", "/h/bot2/logs", "/var/traces"],
    );
    assert.deepEqual(traceFoldersWithin(db, "/h/bot"), [
      "/h/bot/.framework/traces",
      "/h/bot/old-logs",
    ]);
    assert.deepEqual(traceFoldersWithin(db, "/h/bot/"), traceFoldersWithin(db, "/h/bot"));
    assert.deepEqual(traceFoldersWithin(db, "/h"), [
      "/h/bot/.framework/traces",
      "/h/bot/old-logs",
      "/h/bot2/logs",
    ]);
    // New runs add their folder once, through the trigger.
    for (
      const [id, trace] of [["run_g", "/h/bot/logs/run_g.jsonl"], [
        "run_h",
        "/h/bot/logs/run_h.jsonl",
      ]]
    ) {
      db.prepare(
        `INSERT INTO runs (run_id, harness_id, harness_dir, status, started_at, spec_version, trace_path)
         VALUES (?, 'bot', '/h/bot', 'running', 't', 'v', ?)`,
      ).run(id!, trace!);
    }
    assert.deepEqual(traceFoldersWithin(db, "/h/bot"), [
      "/h/bot/.framework/traces",
      "/h/bot/logs",
      "/h/bot/old-logs",
    ]);
    // The query is a range on the key, not a scan of the runs table.
    const plan = db.prepare(
      "EXPLAIN QUERY PLAN SELECT folder FROM trace_folders WHERE folder >= ?1 || '/' AND folder < ?1 || '0' ORDER BY folder",
    ).all("/h/bot").map((r) => String(r.detail));
    assert.ok(
      plan.some((d) =>
        /SEARCH trace_folders USING PRIMARY KEY \(folder>\? AND folder<\?\)/.test(d)
      ),
      plan.join("\n"),
    );
  } finally {
    closeHives();
  }
});

Deno.test("migration 12 records the origins of the forks in the catalog, from their first resume where there is one", async () => {
  await using tmp = await tempDir();
  const path = `${tmp.path}/hive.db`;
  const old = new DatabaseSync(path);
  migrate(old, MIGRATIONS.slice(0, 11));
  old.exec(`
    INSERT INTO harnesses (id, root_path, name, is_fork, parent_id, created_at, updated_at) VALUES
      ('alpha', '/h/alpha', 'Alpha', 0, NULL, 't0', 't0'),
      ('resumed', '/h/resumed', 'Alpha', 1, 'alpha', 't1', 't1'),
      ('fresh', '/h/fresh', 'Alpha', 1, 'alpha', 't2', 't2'),
      ('plain', '/h/plain', 'Plain', 0, NULL, 't3', 't3');
    INSERT INTO runs (run_id, harness_id, harness_dir, status, started_at, spec_version, trace_path,
        parent_run_id, reentry_seq) VALUES
      ('run_p1', 'alpha', '/h/alpha', 'success', 't', 'v', '/h/alpha/.framework/traces/run_p1.jsonl',
        NULL, NULL),
      ('run_r1', 'resumed', '/h/resumed', 'success', 't', 'v',
        '/h/resumed/.framework/traces/run_r1.jsonl', 'run_p1', 6),
      ('run_r2', 'resumed', '/h/resumed', 'success', 't', 'v',
        '/h/resumed/.framework/traces/run_r2.jsonl', 'run_p1', 6),
      ('run_d1', 'plain', '/h/plain', 'success', 't', 'v', '/h/plain/.framework/traces/run_d1.jsonl',
        'run_p1', NULL);
  `);
  old.close();
  try {
    const db = openHive(path);
    const rows = db.prepare(
      "SELECT root_path, harness_id, parent_id, run_id, at, created_at FROM fork_origins ORDER BY root_path",
    ).all().map((r) => ({ ...r }));
    assert.deepEqual(rows, [
      {
        root_path: "/h/fresh",
        harness_id: "fresh",
        parent_id: "alpha",
        run_id: null,
        at: null,
        created_at: "t2",
      },
      {
        root_path: "/h/resumed",
        harness_id: "resumed",
        parent_id: "alpha",
        run_id: "run_p1",
        at: 6,
        created_at: "t1",
      },
    ]);
  } finally {
    closeHives();
  }
});

Deno.test("migration 18 moves a thread's turns onto its runs' rows, and the thread is read from its runs after", async () => {
  await using tmp = await tempDir();
  const path = `${tmp.path}/hive.db`;
  const old = new DatabaseSync(path);
  migrate(old, MIGRATIONS.slice(0, 17));
  old.exec(THREAD_TURNS_BEFORE_18);
  old.close();
  try {
    const db = openHive(path);
    const rows = db.prepare(
      "SELECT run_id, thread_seq, thread_input, thread_output FROM runs ORDER BY run_id",
    ).all();
    assert.deepEqual(rows.map((r) => ({ ...r })), [
      { run_id: "run_1", thread_seq: 1, thread_input: "q1", thread_output: "a1" },
      { run_id: "run_2", thread_seq: 2, thread_input: "q2", thread_output: "" },
      { run_id: "run_x", thread_seq: null, thread_input: null, thread_output: null },
    ]);
    assert.equal(
      db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'thread_turns'").get()!.n,
      0,
    );
    // A run of the thread starting is its next turn, and holds the thread while it runs (read from
    // the turn: migration 21 writes nothing to the thread's row).
    const me = ownProcess();
    db.prepare(`
      INSERT INTO runs (run_id, harness_id, harness_dir, status, started_at, spec_version, trace_path,
        owner_pid, owner_start, thread_id, thread_seq, thread_input)
        VALUES ('run_3', 'bot', '/h/bot', 'running', 't4', 'v', '/h/bot/run_3.jsonl', ?, ?, 'thr_a',
          3, 'q3')
    `).run(me.pid, me.marker);
    const read = () => {
      const thread = getThread(db, { id: "bot", dir: "/h/bot" }, "thr_a", null);
      return {
        turns: thread.turns,
        updated_at: thread.updated_at,
        live_run_id: thread.live_run_id,
      };
    };
    assert.deepEqual(read(), { turns: 3, updated_at: "t4", live_run_id: "run_3" });
    // Its end writes the run's row alone: the thread reads as free, changed when the run ended.
    db.exec(`UPDATE runs SET status = 'success', ended_at = 't5', thread_output = 'a3'
      WHERE run_id = 'run_3'`);
    assert.deepEqual(read(), { turns: 3, updated_at: "t5", live_run_id: null });
  } finally {
    closeHives();
  }
});

Deno.test("migration 21 drops the thread's turn count: a thread is read from its newest turn, and a turn's number is one run's", async () => {
  await using tmp = await tempDir();
  const path = `${tmp.path}/hive.db`;
  const old = new DatabaseSync(path);
  migrate(old, MIGRATIONS.slice(0, 20));
  // A thread of two turns as migration 20 kept it: counted, and its lock naming its last run.
  old.exec(`
    INSERT INTO threads (thread_id, harness_id, harness_dir, owner, metadata, created_at,
      updated_at, turns, live_run_id, live_pid, live_start)
      VALUES ('thr_a', 'bot', '/h/bot', 'cli', '{}', 't0', 't3', 2, 'run_2', 42, 'm');
    INSERT INTO runs (run_id, harness_id, harness_dir, status, started_at, ended_at, spec_version,
      trace_path, thread_id, thread_seq, thread_input, thread_output)
      VALUES ('run_1', 'bot', '/h/bot', 'success', 't1', 't2', 'v', '/h/bot/run_1.jsonl', 'thr_a', 1,
        'q1', 'a1'),
      ('run_2', 'bot', '/h/bot', 'success', 't3', 't4', 'v', '/h/bot/run_2.jsonl', 'thr_a', 2,
        'q2', 'a2');
  `);
  old.close();
  try {
    const db = openHive(path);
    const columns = db.prepare("PRAGMA table_info(threads)").all().map((c) => c.name);
    assert.ok(!columns.includes("turns"), columns.join());
    assert.equal(
      db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'runs_thread_start'").get()!
        .n,
      0,
    );
    const thread = getThread(db, { id: "bot", dir: "/h/bot" }, "thr_a", null);
    assert.deepEqual(
      { turns: thread.turns, updated_at: thread.updated_at, live_run_id: thread.live_run_id },
      { turns: 2, updated_at: "t4", live_run_id: null },
    );
    // A second run with a turn's number is refused by the unique index.
    assert.throws(
      () =>
        db.exec(
          `INSERT INTO runs (run_id, harness_id, harness_dir, status, started_at, spec_version,
          trace_path, thread_id, thread_seq, thread_input)
          VALUES ('run_x', 'bot', '/h/bot', 'running', 't5', 'v', '/h/bot/run_x.jsonl', 'thr_a', 2,
            'q')`,
        ),
      /UNIQUE constraint failed/,
    );
  } finally {
    closeHives();
  }
});
