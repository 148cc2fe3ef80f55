/**
 * Per-harness statistics, answered from SQL aggregates (never by loading runs): the `/stats` payload.
 *
 * @module
 */

import { RUN_STATUSES, type RunStatus } from "../run_types.ts";
import type { HarnessRef } from "./harnesses.ts";
import type { Hive } from "./open.ts";
import { statement } from "../sqlite/statements.ts";

/** The `/stats` payload (CONTRACT.md), plus failure groups and the running count. */
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
 * Computes the statistics of one harness.
 *
 * @example
 * ```ts
 * const stats = harnessStats(openHive(), { id: "hello", dir: "/work/harnesses/hello" });
 * stats.runs.success_rate;
 * ```
 * @param db The hive.
 * @param harness The harness (id and folder).
 * @param recent How many recent failures to list.
 * @returns The statistics.
 */
export function harnessStats(db: Hive, harness: HarnessRef, recent = 10): HarnessStats {
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
    "SELECT status, count(*) AS n, total(cost_usd) AS cost, total(turns) AS turns FROM runs WHERE harness_id = ? AND harness_dir = ? AND live = 1 GROUP BY status",
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
  // Every finished run has a duration (finishRun and the interrupted marker set it).
  const p50 = total === 0 ? null : (statement(
    db,
    "SELECT duration_ms FROM runs WHERE harness_id = ? AND harness_dir = ? AND live = 1 AND duration_ms IS NOT NULL ORDER BY duration_ms LIMIT 1 OFFSET ?",
  ).get(harness.id, harness.dir, Math.floor((total - 1) / 2)) as
    | { duration_ms: number }
    | undefined)
    ?.duration_ms ?? null;
  const hive = statement(
    db,
    "SELECT (SELECT count(*) FROM harnesses) AS harnesses, (SELECT count(*) FROM runs) AS runs",
  ).get() as { harnesses: number; runs: number };
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
    `SELECT failure_signature AS signature, count(*) AS count, max(run_id) AS last_run_id, max(ended_at) AS last_ended_at
     FROM runs WHERE harness_id = ? AND harness_dir = ? AND live = 1 AND failure_signature IS NOT NULL
     GROUP BY failure_signature ORDER BY count DESC, last_run_id DESC LIMIT 20`,
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
      p50_duration_ms: p50,
    },
    hive: { harnesses: hive.harnesses, runs: hive.runs },
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
