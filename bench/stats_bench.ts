/**
 * `framework stats` with 100,000 runs in the hive: answered from SQL aggregates over indexes.
 *
 * @module
 */

import { closeHives, openHive } from "../lib/hive/open.ts";
import { inTransaction } from "../lib/sqlite/database.ts";
import { harnessStats } from "../lib/hive/stats.ts";
import { fmt, measure, report } from "./measure.ts";

const BUSY = { id: "busy", dir: "/h/busy" };

/** Runs the benchmark. */
export async function run(): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "fw-bench-stats-" });
  const path = `${dir}/hive.db`;
  try {
    const db = openHive(path);
    const n = 100_000;
    const statuses = [
      "success",
      "success",
      "success",
      "verify_failed",
      "guardrail_halt",
      "max_turns",
      "error",
    ];
    const t0 = performance.now();
    inTransaction(db, () => {
      const insert = db.prepare(
        `INSERT INTO runs (run_id, harness_id, harness_dir, status, input_excerpt, output_excerpt, cost_usd,
           turns, started_at, ended_at, duration_ms, spec_version, trace_path, events, failure_signature, error)
         VALUES (?, ?, ?, ?, 'input', 'output', ?, ?, ?, ?, ?, 'v', '/t', 8, ?, ?)`,
      );
      for (let i = 0; i < n; i++) {
        const status = statuses[i % statuses.length]!;
        const harness = i % 10 === 0 ? "other" : "busy";
        const t = new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
        insert.run(
          `run_${String(i).padStart(26, "0")}`,
          harness,
          `/h/${harness}`,
          status,
          0.001 * (i % 7),
          1 + (i % 5),
          t,
          t,
          10 + (i % 1000),
          status === "success" ? null : `${status}:reason-${i % 13}`,
          status === "success" ? null : "why",
        );
      }
    });
    report(`insert ${n.toLocaleString()} runs (one transaction)`, {
      seconds: fmt((performance.now() - t0) / 1000, " s"),
    });
    const timing = await measure(50, () => harnessStats(db, BUSY), 3);
    const s = harnessStats(db, BUSY);
    report(`harnessStats over ${s.runs.total.toLocaleString()} runs of one harness`, {
      mean: fmt(timing.mean_ms, " ms"),
      p99: fmt(timing.p99_ms, " ms"),
    });
    const plan = db.prepare(
      "EXPLAIN QUERY PLAN SELECT status, count(*), total(cost_usd), total(turns) FROM runs WHERE harness_id = ? AND harness_dir = ? GROUP BY status",
    ).all(BUSY.id, BUSY.dir) as { detail: string }[];
    console.log(`  plan: ${plan.map((p) => p.detail).join("; ")}`);
  } finally {
    closeHives();
    await Deno.remove(dir, { recursive: true });
  }
}
