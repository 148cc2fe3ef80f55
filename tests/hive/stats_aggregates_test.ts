/**
 * The statistics the hive keeps as runs change (migration 6) must equal what a scan of the runs table
 * says, after any mix of inserts, finishes, interruptions, eval runs and deletes, and after the
 * migration backfills a hive written before it.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import type { HarnessRef } from "../../lib/hive/harnesses.ts";
import { MIGRATIONS } from "../../lib/hive/migrations.ts";
import { closeHives, type Hive, openHive } from "../../lib/hive/open.ts";
import { finishRun, insertRun } from "../../lib/hive/runs.ts";
import { harnessStats } from "../../lib/hive/stats.ts";
import { RUN_STATUSES, type RunStatus } from "../../lib/run_types.ts";
import { migrate } from "../../lib/sqlite/database.ts";
import { tempDir } from "../helpers/temp.ts";
import { storeHome, STORES } from "../helpers/hive_stores.ts";

interface Row {
  run_id: string;
  status: string;
  cost_usd: number;
  turns: number;
  duration_ms: number | null;
  ended_at: string | null;
  failure_signature: string | null;
}

/** The statistics by scanning, as harnessStats computed them before migration 6. */
function scanned(db: Hive, h: HarnessRef) {
  const rows = db.prepare(
    "SELECT * FROM runs WHERE harness_id = ? AND harness_dir = ? AND live = 1",
  ).all(h.id, h.dir) as unknown as Row[];
  const finished = rows.filter((r) => r.status !== "running");
  const by_status = Object.fromEntries(RUN_STATUSES.map((s) => [s, 0])) as Record<
    RunStatus,
    number
  >;
  for (const r of finished) by_status[r.status as RunStatus]++;
  const durations = rows.map((r) => r.duration_ms).filter((d): d is number => d !== null)
    .sort((a, b) => a - b);
  const groups = new Map<string, { count: number; last_run_id: string; last_ended_at: string }>();
  for (const r of rows) {
    const sig = r.failure_signature;
    if (sig === null) continue;
    const g = groups.get(sig) ?? { count: 0, last_run_id: "", last_ended_at: "" };
    g.count++;
    if (r.run_id > g.last_run_id) g.last_run_id = r.run_id;
    if ((r.ended_at ?? "") > g.last_ended_at) g.last_ended_at = r.ended_at ?? "";
    groups.set(sig, g);
  }
  const total = finished.length;
  return {
    total,
    running: rows.length - total,
    by_status,
    cost_usd: Math.round(rows.reduce((a, r) => a + r.cost_usd, 0) * 1e9) / 1e9,
    avg_turns: total ? finished.reduce((a, r) => a + r.turns, 0) / total : null,
    p50_duration_ms: durations.length ? durations[Math.floor((durations.length - 1) / 2)]! : null,
    runs_in_hive: (db.prepare("SELECT count(*) AS n FROM runs").get() as { n: number }).n,
    failure_groups: [...groups.entries()]
      .map(([signature, g]) => ({ signature, ...g, last_ended_at: g.last_ended_at || null }))
      .sort((a, b) => b.count - a.count || (a.last_run_id < b.last_run_id ? 1 : -1)).slice(0, 20),
  };
}

function kept(db: Hive, h: HarnessRef) {
  const s = harnessStats(db, h);
  return {
    total: s.runs.total,
    running: s.runs.running,
    by_status: s.runs.by_status,
    cost_usd: s.runs.cost_usd,
    avg_turns: s.runs.avg_turns,
    p50_duration_ms: s.runs.p50_duration_ms,
    runs_in_hive: s.hive.runs,
    failure_groups: s.failure_groups,
  };
}

/** A small deterministic random generator (the failing seed is printed). */
function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => ((x ^= x << 13, x ^= x >>> 17, x ^= x << 5) >>> 0) / 2 ** 32;
}

for (const store of STORES) {
  Deno.test(`hive statistics kept by triggers equal a scan after random inserts, finishes, interruptions and deletes [${store}]`, async () => {
    await using _home = await storeHome(store);
    try {
      const db = openHive();
      const harnesses: HarnessRef[] = [{ id: "a", dir: "/h/a" }, { id: "a", dir: "/h/a-copy" }, {
        id: "b",
        dir: "/h/b",
      }];
      for (const seed of [1, 2, 3]) {
        const rand = rng(seed);
        const pick = <T>(list: readonly T[]) => list[Math.floor(rand() * list.length)]!;
        const running: { id: string; h: HarnessRef }[] = [];
        for (let i = 0; i < 600; i++) {
          const op = rand();
          if (op < 0.45 || running.length === 0) {
            const h = pick(harnesses);
            const id = `run_${seed}_${String(i).padStart(5, "0")}`;
            insertRun(db, {
              run_id: id,
              harness_id: h.id,
              harness_dir: h.dir,
              input: "x",
              started_at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
              spec_version: "v",
              trace_path: "/t",
              live: rand() < 0.85,
            });
            running.push({ id, h });
          } else if (op < 0.85) {
            const [r] = running.splice(Math.floor(rand() * running.length), 1);
            const status = pick(
              ["success", "success", "error", "max_turns", "verify_failed"] as const,
            );
            // Durations from a few ms to minutes, many ties: both bucket walks are exercised.
            const duration = rand() < 0.3 ? 5 : Math.floor(rand() ** 3 * 300_000);
            finishRun(db, {
              run_id: r!.id,
              harness_id: r!.h.id,
              status,
              output: "o",
              cost_usd: Math.round(rand() * 1000) / 1e5,
              turns: 1 + Math.floor(rand() * 4),
              started_at: "s",
              ended_at: new Date(Date.UTC(2026, 1, 1, 0, 0, Math.floor(rand() * 1e5)))
                .toISOString(),
              duration_ms: duration,
              spec_version: "v",
              failure_signature: status === "success"
                ? null
                : `${status}:r${Math.floor(rand() * 4)}`,
            }, { head_hash: "h", events: 3 });
          } else if (op < 0.93) {
            // An interrupted run (the marker of a dead process), through the same kind of UPDATE.
            const [r] = running.splice(Math.floor(rand() * running.length), 1);
            db.prepare(
              `UPDATE runs SET status = 'error', failure_signature = 'error:interrupted', ended_at = ?,
                 duration_ms = ? WHERE run_id = ?`,
            ).run("2026-03-01T00:00:00.000Z", Math.floor(rand() * 5000), r!.id);
          } else {
            const any = db.prepare("SELECT run_id FROM runs ORDER BY random() LIMIT 1").get() as
              | { run_id: string }
              | undefined;
            if (any) {
              db.prepare("DELETE FROM runs WHERE run_id = ?").run(any.run_id);
              const at = running.findIndex((r) => r.id === any.run_id);
              if (at >= 0) running.splice(at, 1);
            }
          }
          if (i % 50 === 49) {
            for (const h of harnesses) {
              assert.deepEqual(kept(db, h), scanned(db, h), `seed ${seed}, step ${i}, ${h.dir}`);
            }
          }
        }
      }
    } finally {
      closeHives();
    }
  });
}

Deno.test("migration 6 backfills the statistics of a hive written before it", async () => {
  await using tmp = await tempDir();
  const path = `${tmp.path}/hive.db`;
  const old = new DatabaseSync(path);
  migrate(old, MIGRATIONS.slice(0, 5));
  const insert = old.prepare(
    `INSERT INTO runs (run_id, harness_id, harness_dir, status, cost_usd, turns, started_at, ended_at,
       duration_ms, spec_version, trace_path, failure_signature, live)
     VALUES (?, 'bot', '/h/bot', ?, 0.5, 2, 't', ?, ?, 'v', '/t', ?, ?)`,
  );
  insert.run("run_1", "success", "2026-01-01", 100, null, 1);
  insert.run("run_2", "error", "2026-01-02", 3000, "error:x", 1);
  insert.run("run_3", "error", "2026-01-03", 2000, "error:x", 1);
  insert.run("run_4", "error", "2026-01-04", 9, "error:x", 0); // an eval run: not counted
  old.close();
  try {
    const db = openHive(path);
    const h = { id: "bot", dir: "/h/bot" };
    assert.deepEqual(kept(db, h), scanned(db, h));
    const s = harnessStats(db, h);
    assert.equal(s.runs.total, 3);
    assert.equal(s.runs.running, 0);
    assert.equal(s.runs.p50_duration_ms, 2000);
    assert.equal(s.hive.runs, 4);
    assert.deepEqual(s.failure_groups, [
      { signature: "error:x", count: 2, last_run_id: "run_3", last_ended_at: "2026-01-03" },
    ]);
  } finally {
    closeHives();
  }
});

Deno.test("harnessStats answers again only when the hive changed, whoever changed it", async () => {
  await using tmp = await tempDir();
  const path = `${tmp.path}/hive.db`;
  try {
    const db = openHive(path);
    const h = { id: "bot", dir: "/h/bot" };
    const first = harnessStats(db, h);
    assert.equal(first.runs.total, 0);
    assert.equal(harnessStats(db, h), first, "unchanged hive: the same answer");
    assert.throws(() => {
      (first.runs as { total: number }).total = 99;
    }, TypeError);
    // Another process (another connection to the file) finishes a run: the next answer counts it.
    const other = new DatabaseSync(path);
    other.exec(`INSERT INTO runs (run_id, harness_id, harness_dir, status, started_at, ended_at,
      duration_ms, spec_version, trace_path) VALUES ('run_x', 'bot', '/h/bot', 'success', 't', 't',
      5, 'v', '/t')`);
    const second = harnessStats(db, h);
    assert.equal(second.runs.total, 1);
    assert.equal(second.hive.runs, 1);
    // A harness added to the catalog changes the hive's figures too.
    other.exec(`INSERT INTO harnesses (id, root_path, name, created_at, updated_at)
      VALUES ('x', '/h/x', 'X', 't', 't')`);
    other.close();
    assert.equal(harnessStats(db, h).hive.harnesses, second.hive.harnesses + 1);
  } finally {
    closeHives();
  }
});
