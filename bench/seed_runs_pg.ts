/**
 * Fills a PostgreSQL hive with finished runs in SQL (`generate_series`), the same runs as
 * bench/seed_runs.ts makes in SQLite: the benchmarks' way to a PostgreSQL hive with a million runs.
 * The statistics trigger costs about half a millisecond a row, so the rows go in with triggers off
 * (`session_replication_role = replica`) and the statistics tables are then made from the runs in
 * one pass each; {@link checkSeededAggregates} shows on a sample that this makes what the trigger
 * makes.
 *
 * @module
 */

import type { PgConnection } from "../lib/pg/connection.ts";
import type { HarnessRef } from "../lib/hive/harnesses.ts";

const INSERT = `
INSERT INTO runs (run_id, harness_id, harness_dir, status, input_excerpt, output_excerpt, cost_usd,
  turns, started_at, ended_at, duration_ms, spec_version, trace_path, events, failure_signature, error)
SELECT 'run_' || lpad(i::text, 26, '0'),
  CASE WHEN i % 10 = 0 THEN 'other' ELSE $1 END,
  CASE WHEN i % 10 = 0 THEN '/h/other' ELSE $2 END,
  s.status, 'input', 'output', 0.001 * (i % 7), 1 + (i % 5),
  to_char(timestamp '2026-01-01' + i * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
  to_char(timestamp '2026-01-01' + i * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
  10 + ((i * 7919) % 5000), 'v', '/t', 8,
  CASE WHEN s.status = 'success' THEN NULL ELSE s.status || ':reason-' || (i % 13) END,
  CASE WHEN s.status = 'success' THEN NULL ELSE 'why' END
FROM generate_series($3::bigint, $4::bigint) AS i,
  LATERAL (SELECT (ARRAY['success', 'success', 'success', 'verify_failed', 'guardrail_halt',
    'max_turns', 'error'])[i % 7 + 1] AS status) s`;

const AGGREGATES = `
TRUNCATE run_totals, run_duration_buckets, run_durations, run_failure_groups;
INSERT INTO run_totals SELECT harness_id, harness_dir, status, count(*), sum(cost_usd), sum(turns)
  FROM runs WHERE live = 1 GROUP BY 1, 2, 3;
INSERT INTO run_duration_buckets SELECT harness_id, harness_dir, duration_ms >> 10, count(*)
  FROM runs WHERE live = 1 AND duration_ms IS NOT NULL GROUP BY 1, 2, 3;
INSERT INTO run_durations SELECT harness_id, harness_dir, duration_ms, count(*)
  FROM runs WHERE live = 1 AND duration_ms IS NOT NULL GROUP BY 1, 2, 3;
INSERT INTO run_failure_groups
  SELECT harness_id, harness_dir, failure_signature, count(*), max(run_id), max(ended_at)
  FROM runs WHERE live = 1 AND failure_signature IS NOT NULL GROUP BY 1, 2, 3;
UPDATE hive_counters SET n = (SELECT count(*) FROM runs) WHERE name = 'runs';
UPDATE hive_counters SET n = n + 1 WHERE name = 'stats_changes';
ANALYZE`;

/**
 * Inserts runs `from … n - 1` with the triggers off, then makes the statistics from the runs.
 *
 * @param db The hive (PostgreSQL, otherwise empty of runs).
 * @param harness The harness most runs belong to (one in ten is another's).
 * @param n How many runs in all.
 * @param from The first run's number.
 */
export function seedRunsPg(db: PgConnection, harness: HarnessRef, n: number, from = 0): void {
  db.exec("SET session_replication_role = replica");
  try {
    for (let start = from; start < n; start += 50_000) {
      db.query(INSERT, [harness.id, harness.dir, start, Math.min(n, start + 50_000) - 1]);
    }
  } finally {
    db.exec("SET session_replication_role = DEFAULT");
  }
  db.exec(AGGREGATES);
}

/**
 * Seeds `n` runs through the trigger, snapshots the statistics tables, makes them again as
 * {@link seedRunsPg} does, and says whether both agree (costs to 1e-9).
 *
 * @param db A PostgreSQL hive with no runs.
 * @param harness The harness.
 * @param n Runs (a few thousand: the trigger is the slow way).
 * @returns The tables that differ (none when both ways agree).
 */
export function checkSeededAggregates(db: PgConnection, harness: HarnessRef, n: number): string[] {
  db.query(INSERT, [harness.id, harness.dir, 0, n - 1]);
  const tables = ["run_totals", "run_duration_buckets", "run_durations", "run_failure_groups"];
  const snapshot = () =>
    tables.map((t) =>
      JSON.stringify(
        db.query(`SELECT * FROM ${t} ORDER BY 1, 2, 3`).rows.map((r) =>
          Object.values(r).map((v) => typeof v === "number" ? Math.round(v * 1e9) : v)
        ),
      )
    );
  const byTrigger = snapshot();
  db.exec(AGGREGATES);
  const rebuilt = snapshot();
  return tables.filter((_, i) => byTrigger[i] !== rebuilt[i]);
}
