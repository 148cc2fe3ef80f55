/**
 * Fills a hive with finished runs of one harness (and one run in ten of another), as fast as SQLite
 * allows: the benchmarks' way to a hive with a million runs.
 *
 * @module
 */

import { closeHives, openHive } from "../lib/hive/open.ts";
import type { HarnessRef } from "../lib/hive/harnesses.ts";
import { inTransaction } from "../lib/sqlite/database.ts";

const STATUSES = [
  "success",
  "success",
  "success",
  "verify_failed",
  "guardrail_halt",
  "max_turns",
  "error",
];

/**
 * Inserts `n` finished runs into the hive at `path` through the same statements and triggers as real
 * runs (the aggregates stay in step), then closes it.
 *
 * @param path The hive file.
 * @param harness The harness most runs belong to.
 * @param n How many runs in all.
 * @param from How many the hive already holds (runs are numbered on from there).
 */
export function seedRuns(path: string, harness: HarnessRef, n: number, from = 0): void {
  const db = openHive(path);
  // A page cache large enough for the runs table's indexes: the seeding is bound by B-tree pages.
  db.exec("PRAGMA cache_size = -1000000");
  try {
    const insert = db.prepare(
      `INSERT INTO runs (run_id, harness_id, harness_dir, status, input_excerpt, output_excerpt, cost_usd,
         turns, started_at, ended_at, duration_ms, spec_version, trace_path, events, failure_signature, error)
       VALUES (?, ?, ?, ?, 'input', 'output', ?, ?, ?, ?, ?, 'v', '/t', 8, ?, ?)`,
    );
    const batch = 50_000;
    for (let start = from; start < n; start += batch) {
      inTransaction(db, () => {
        for (let i = start; i < Math.min(n, start + batch); i++) {
          const status = STATUSES[i % STATUSES.length]!;
          const other = i % 10 === 0;
          const t = new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
          insert.run(
            `run_${String(i).padStart(26, "0")}`,
            other ? "other" : harness.id,
            other ? "/h/other" : harness.dir,
            status,
            0.001 * (i % 7),
            1 + (i % 5),
            t,
            t,
            10 + ((i * 7919) % 5000),
            status === "success" ? null : `${status}:reason-${i % 13}`,
            status === "success" ? null : "why",
          );
        }
      });
    }
  } finally {
    closeHives();
  }
}
