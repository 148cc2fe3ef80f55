/**
 * The figures behind the workbench's charts of a harness, one query each: its finished live runs per
 * day by status, and per day the mean cost of a run with the p50 and p95 durations. Days are UTC
 * calendar days; every day of the window is present (a day without runs has zeros and nulls), so a
 * chart and the table behind it show the same days. The SQL is plain (window functions, `substr`,
 * integer division), which SQLite and PostgreSQL both read.
 *
 * @module
 */

import { ulidFloor } from "../ids.ts";
import { RUN_STATUSES, type RunStatus } from "../run_types.ts";
import type { HarnessRef } from "./harnesses.ts";
import type { Hive } from "./open.ts";
import { statement } from "../sqlite/statements.ts";

/** One day of runs by status. */
export interface RunsDay {
  /** `YYYY-MM-DD` (UTC). */
  day: string;
  by_status: Record<RunStatus, number>;
  total: number;
}

/** One day's cost and durations. */
export interface CostDurationDay {
  day: string;
  runs: number;
  /** Mean cost of a run, USD (null without runs). */
  cost_per_run_usd: number | null;
  /** Nearest-rank percentiles of the day's durations (p50: the lower middle, as the stats). */
  p50_duration_ms: number | null;
  p95_duration_ms: number | null;
}

/** The charts of a harness over a window of days (`GET /api/harnesses/{id}/charts`). */
export interface HarnessCharts {
  harness_id: string;
  /** The window's first and last day. */
  from: string;
  to: string;
  runs_per_day: RunsDay[];
  cost_duration: CostDurationDay[];
}

/** How many days a window may hold. */
export const MAX_CHART_DAYS = 366;

/**
 * The days of a window that ends today (UTC), oldest first.
 *
 * @param days How many.
 * @param now The time now (epoch ms).
 * @returns The days as `YYYY-MM-DD`.
 */
export function windowDays(days: number, now: number): string[] {
  const today = Date.UTC(
    new Date(now).getUTCFullYear(),
    new Date(now).getUTCMonth(),
    new Date(now).getUTCDate(),
  );
  return Array.from(
    { length: days },
    (_, i) => new Date(today - (days - 1 - i) * 86_400_000).toISOString().slice(0, 10),
  );
}

/**
 * The charts of a harness: runs per day by status, cost per run and p50/p95 duration per day, over
 * the last `days` days (today included). Runs count on the day they started; runs still going are
 * left out until they finish, as in the harness's figures; evaluation runs are left out.
 *
 * @example
 * ```ts
 * import { openHive } from "./open.ts";
 *
 * const c = harnessCharts(openHive(), { id: "hello", dir: "/h/hello" }, 7);
 * c.runs_per_day.map((d) => d.total); // seven numbers, oldest first
 * ```
 * @param db The hive.
 * @param harness The harness.
 * @param days The window, in days (1 to {@link MAX_CHART_DAYS}).
 * @param now The time now (epoch ms).
 * @returns The figures.
 */
export function harnessCharts(
  db: Hive,
  harness: HarnessRef,
  days = 30,
  now = Date.now(),
): HarnessCharts {
  const window = windowDays(Math.max(1, Math.min(MAX_CHART_DAYS, Math.floor(days))), now);
  const from = window[0]!;
  return {
    harness_id: harness.id,
    from,
    to: window.at(-1)!,
    runs_per_day: runsPerDay(db, harness, window),
    cost_duration: costDurationPerDay(db, harness, window),
  };
}

/**
 * The lowest run id of a window that starts on `day`: run ids are ULIDs made when the run starts,
 * (an id can be made a little before its run starts, while it waits in the queue: a day of margin
 * covers that, and `started_at` still decides), so this bound lets both queries read only the
 * window's part of the `(harness, run_id)` index instead of every run the harness ever had.
 */
function idFloor(day: string): string {
  return `run_${ulidFloor(Date.parse(`${day}T00:00:00.000Z`) - 86_400_000)}`;
}

/** Finished live runs per day and status: one grouped query. */
function runsPerDay(db: Hive, harness: HarnessRef, window: string[]): RunsDay[] {
  const rows = statement(
    db,
    `SELECT substr(started_at, 1, 10) AS day, status, count(*) AS n FROM runs
     WHERE harness_id = ? AND harness_dir = ? AND live = 1 AND status != 'running'
       AND run_id >= ? AND started_at >= ?
     GROUP BY substr(started_at, 1, 10), status`,
  ).all(harness.id, harness.dir, idFloor(window[0]!), window[0]!) as {
    day: string;
    status: string;
    n: number;
  }[];
  const byDay = new Map(window.map((day) => [day, {
    day,
    by_status: Object.fromEntries(RUN_STATUSES.map((s) => [s, 0])) as Record<RunStatus, number>,
    total: 0,
  }]));
  for (const r of rows) {
    const d = byDay.get(r.day);
    if (!d || !(r.status in d.by_status)) continue;
    d.by_status[r.status as RunStatus] += Number(r.n);
    d.total += Number(r.n);
  }
  return [...byDay.values()];
}

/**
 * Mean cost and the p50/p95 durations per day: one query, whose window functions rank each day's
 * durations so only two rows a day leave the database.
 */
function costDurationPerDay(db: Hive, harness: HarnessRef, window: string[]): CostDurationDay[] {
  const rows = statement(
    db,
    `WITH d AS (
       SELECT substr(started_at, 1, 10) AS day, duration_ms,
         row_number() OVER (PARTITION BY substr(started_at, 1, 10) ORDER BY duration_ms) AS k,
         count(*) OVER (PARTITION BY substr(started_at, 1, 10)) AS n,
         sum(cost_usd) OVER (PARTITION BY substr(started_at, 1, 10)) AS cost
       FROM runs
       WHERE harness_id = ? AND harness_dir = ? AND live = 1 AND status != 'running'
         AND duration_ms IS NOT NULL AND run_id >= ? AND started_at >= ?
     )
     SELECT day, n, cost,
       max(CASE WHEN k = (n - 1) / 2 + 1 THEN duration_ms END) AS p50,
       max(CASE WHEN k = (n * 95 + 99) / 100 THEN duration_ms END) AS p95
     FROM d GROUP BY day, n, cost`,
  ).all(harness.id, harness.dir, idFloor(window[0]!), window[0]!) as {
    day: string;
    n: number;
    cost: number;
    p50: number | null;
    p95: number | null;
  }[];
  const byDay = new Map(rows.map((r) => [r.day, r]));
  return window.map((day) => {
    const r = byDay.get(day);
    const n = r ? Number(r.n) : 0;
    return {
      day,
      runs: n,
      cost_per_run_usd: r && n ? Math.round((r.cost / n) * 1e9) / 1e9 : null,
      p50_duration_ms: r?.p50 ?? null,
      p95_duration_ms: r?.p95 ?? null,
    };
  });
}
