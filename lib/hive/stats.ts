/**
 * Per-harness statistics, answered from SQL aggregates (never by loading runs): the `/stats` payload.
 *
 * @module
 */

import { RUN_STATUSES, type RunStatus } from "../run_types.ts";
import type { HarnessRef } from "./harnesses.ts";
import type { Hive } from "./open.ts";
import { statement } from "../sqlite/statements.ts";

/** The `/stats` payload (docs/control-plane.md, Endpoints). */
export interface HarnessStats {
  harness_id: string;
  runs: {
    /** Finished runs. */
    total: number;
    /** Runs still going. */
    running: number;
    by_status: Record<RunStatus, number>;
    /** Successes over finished runs; null when there are none. */
    success_rate: number | null;
    cost_usd: number;
    avg_turns: number | null;
    p50_duration_ms: number | null;
  };
  hive: { harnesses: number; runs: number };
  recent_failures: {
    run_id: string;
    status: RunStatus;
    ended_at: string | null;
    signature: string | null;
    excerpt: string;
  }[];
  /** Failures grouped by signature, most frequent first. */
  failure_groups: {
    signature: string;
    count: number;
    last_run_id: string;
    last_ended_at: string | null;
  }[];
}

/**
 * The statistics of one harness, from the aggregates the hive keeps as runs change (migration 6): a
 * few short index reads at any number of runs, and one read of the hive's change counter while the
 * last answer still stands. The answer is frozen (it may be shared with other callers).
 *
 * @example
 * ```ts
 * import { openHive } from "./open.ts";
 *
 * const stats = harnessStats(openHive(), { id: "hello", dir: "/work/harnesses/hello" });
 * stats.runs.success_rate;
 * ```
 * @param db The hive.
 * @param harness The harness (id and folder).
 * @param recent How many recent failures to list.
 * @returns The statistics.
 */
export function harnessStats(db: Hive, harness: HarnessRef, recent = 10): HarnessStats {
  // The last answer stands while nothing it counts has changed (the hive's change counter, moved by
  // triggers on every write to runs and every harness added or removed, by any process).
  const changes = (statement(db, "SELECT n FROM hive_counters WHERE name = 'stats_changes'")
    .get() as { n: number } | undefined)?.n;
  let forDb = answers.get(db);
  if (!forDb) answers.set(db, forDb = new Map());
  const key = `${recent}\0${harness.id}\0${harness.dir}`;
  const last = forDb.get(key);
  if (changes !== undefined && last?.changes === changes) return last.stats;
  const stats = deepFreeze(computeStats(db, harness, recent));
  if (changes !== undefined) {
    if (forDb.size >= 256) forDb.clear();
    forDb.set(key, { changes, stats });
  }
  return stats;
}

/** Answers are shared between callers: frozen, so none can change another's. */
function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object") {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/** Each hive's last answers, by harness: kept while the change counter stands still. */
const answers = new WeakMap<Hive, Map<string, { changes: number; stats: HarnessStats }>>();

function computeStats(db: Hive, harness: HarnessRef, recent: number): HarnessStats {
  const by_status = Object.fromEntries(RUN_STATUSES.map((s) => [s, 0])) as Record<
    RunStatus,
    number
  >;
  let total = 0;
  let running = 0;
  let cost = 0;
  let turns = 0;
  const groups = statement(
    db,
    "SELECT status, n, cost, turns FROM run_totals WHERE harness_id = ? AND harness_dir = ?",
  ).all(harness.id, harness.dir) as { status: string; n: number; cost: number; turns: number }[];
  for (const g of groups) {
    cost += g.cost;
    if (g.status === "running") {
      running = g.n;
      continue;
    }
    if (g.status in by_status) by_status[g.status as RunStatus] = g.n;
    total += g.n;
    turns += g.turns;
  }
  const hive = statement(
    db,
    "SELECT (SELECT count(*) FROM harnesses) AS harnesses, (SELECT n FROM hive_counters WHERE name = 'runs') AS runs",
  ).get() as { harnesses: number; runs: number | null };
  const failures = statement(
    db,
    `SELECT run_id, status, ended_at, failure_signature, error, output_excerpt FROM runs
     WHERE harness_id = ? AND harness_dir = ? AND live = 1 AND failure_signature IS NOT NULL
     ORDER BY run_id DESC LIMIT ?`,
  ).all(harness.id, harness.dir, recent) as {
    run_id: string;
    status: RunStatus;
    ended_at: string | null;
    failure_signature: string | null;
    error: string | null;
    output_excerpt: string;
  }[];
  const failureGroups = statement(
    db,
    `SELECT signature, n AS count, last_run_id, last_ended_at FROM run_failure_groups
     WHERE harness_id = ? AND harness_dir = ? AND n > 0
     ORDER BY n DESC, last_run_id DESC LIMIT 20`,
  ).all(harness.id, harness.dir) as HarnessStats["failure_groups"];
  return {
    harness_id: harness.id,
    runs: {
      total,
      running,
      by_status,
      success_rate: total ? by_status.success / total : null,
      cost_usd: Math.round(cost * 1e9) / 1e9,
      avg_turns: total ? turns / total : null,
      p50_duration_ms: medianDuration(db, harness),
    },
    hive: { harnesses: hive.harnesses, runs: hive.runs ?? 0 },
    recent_failures: failures.map((f) => ({
      run_id: f.run_id,
      status: f.status,
      ended_at: f.ended_at,
      signature: f.failure_signature,
      excerpt: f.error ?? f.output_excerpt,
    })),
    failure_groups: failureGroups.map((g) => ({ ...g, count: Number(g.count) })),
  };
}

/**
 * The exact median (lower middle) duration of the harness's finished live runs: the 1024 ms bucket
 * that holds it is found by walking the bucket counts, then the value inside it by walking that
 * bucket's exact counts (at most 1024 rows), so the cost does not grow with the number of runs.
 */
function medianDuration(db: Hive, harness: HarnessRef): number | null {
  const buckets = statement(
    db,
    "SELECT bucket, n FROM run_duration_buckets WHERE harness_id = ? AND harness_dir = ? AND n > 0 ORDER BY bucket",
  ).all(harness.id, harness.dir) as { bucket: number; n: number }[];
  let count = 0;
  for (const b of buckets) count += b.n;
  if (count === 0) return null;
  let k = Math.floor((count - 1) / 2);
  for (const b of buckets) {
    if (k >= b.n) {
      k -= b.n;
      continue;
    }
    const values = statement(
      db,
      `SELECT duration_ms, n FROM run_durations WHERE harness_id = ? AND harness_dir = ?
       AND duration_ms BETWEEN ? AND ? AND n > 0 ORDER BY duration_ms`,
    ).all(harness.id, harness.dir, b.bucket * 1024, b.bucket * 1024 + 1023) as {
      duration_ms: number;
      n: number;
    }[];
    for (const v of values) {
      if (k < v.n) return v.duration_ms;
      k -= v.n;
    }
    break; // the two tables disagree (never, short of a hand edit): fall through to null
  }
  return null;
}
