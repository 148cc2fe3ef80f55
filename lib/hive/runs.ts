/**
 * Runs in the hive: one row per run, written when it starts and when it ends. Every lookup by run id
 * is bound to a harness id; an unknown id and another harness's id look the same (not found).
 *
 * @module
 */

import { NOT_HARNESS_FAILURES } from "../failure_signature.ts";
import { ownProcess } from "../process_identity.ts";
import { badInput } from "../errors.ts";
import { isRunStatus, RUN_STATUSES, type RunResult, type RunStatus } from "../run_types.ts";
import type { HarnessRef } from "./harnesses.ts";
import { type Hive, isPgHive } from "./open.ts";
import { type SqlValue, statement } from "../sqlite/statements.ts";
import { turnStarted } from "./thread_history.ts";

/** One row of the `runs` table. */
export interface RunRow {
  run_id: string;
  harness_id: string;
  /** The harness folder the run belongs to. */
  harness_dir: string;
  status: RunStatus | "running";
  input_excerpt: string;
  output_excerpt: string;
  cost_usd: number;
  turns: number;
  started_at: string;
  ended_at: string | null;
  duration_ms: number | null;
  spec_version: string;
  trace_path: string;
  head_hash: string | null;
  events: number;
  parent_run_id: string | null;
  /** A resumed fork's run: the seq of its parent run it re-entered at (null otherwise). */
  reentry_seq: number | null;
  /** The evaluation the run belongs to (null for a live run). */
  eval_id: string | null;
  /** The thread the run is a turn of (null for a run of no thread). */
  thread_id: string | null;
  /** 1 when the run counts in the harness's live-run fitness (0: an eval run). */
  live: number;
  failure_signature: string | null;
  /** Why it did not succeed, as `<reason>: <message>` (null for a success or a running run). */
  error: string | null;
  /**
   * The reason alone (`stopped`, `timeout`, `provider:http_429`, …; null for a success or a running
   * run): what the pages read, with the status, to say how a run ended (`runOutcome`).
   */
  reason: string | null;
}

const EXCERPT = 200;

/**
 * Cuts text to an excerpt.
 *
 * @param text The text.
 * @param max At most this many characters.
 * @returns The excerpt.
 */
export function excerpt(text: string, max = EXCERPT): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * Records a run as it starts (status `running`, owned by this process).
 *
 * @param db The hive.
 * @param r The run's identity and input.
 */
export function insertRun(
  db: Hive,
  r: {
    run_id: string;
    harness_id: string;
    harness_dir: string;
    input: string;
    started_at: string;
    spec_version: string;
    trace_path: string;
    parent_run_id?: string | null;
    reentry_seq?: number | null;
    eval_id?: string | null;
    /** Whether it counts in live-run fitness (default true). */
    live?: boolean;
    /**
     * The thread the run is a turn of (its start checked the thread free: lib/hive/threads.ts): the
     * row is the turn, numbered after the thread's last (one run a number: a unique index), with the
     * whole input; while it runs, it holds the thread.
     */
    thread_id?: string | null;
    /**
     * Records the turn only while its thread still is as this process knows it (a start without
     * reading the thread first: lib/hive/threads.ts); else nothing is recorded and
     * {@link isThreadMoved} is thrown.
     */
    thread_if?: TurnCondition;
  },
): void {
  const owner = ownProcess();
  const args = [
    r.run_id,
    r.harness_id,
    r.harness_dir,
    excerpt(r.input),
    r.started_at,
    r.spec_version,
    r.trace_path,
    r.parent_run_id ?? null,
    r.reentry_seq ?? null,
    r.eval_id ?? null,
    r.live === false ? 0 : 1,
    owner.pid,
    owner.marker,
  ];
  const columns = `run_id, harness_id, harness_dir, status, input_excerpt, started_at, spec_version,
       trace_path, parent_run_id, reentry_seq, eval_id, live, owner_pid, owner_start`;
  if (!r.thread_id) {
    statement(
      db,
      `INSERT INTO runs (${columns}) VALUES (?, ?, ?, 'running', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(...args);
    return;
  }
  const cond = r.thread_if;
  if (cond?.first) {
    // A new thread's first turn: numbered 1 with nothing read. The thread is stored after this row,
    // in the same transaction (lib/hive/threads.ts).
    statement(
      db,
      `INSERT INTO runs (${columns}, thread_id, thread_seq, thread_input)
       VALUES (?, ?, ?, 'running', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?)`,
    ).run(...args, r.thread_id, r.input);
    turnStarted(r.run_id, r.thread_id, 1, r.input);
    return;
  }
  const row = !cond
    ? statement(
      db,
      `INSERT INTO runs (${columns}, thread_id, thread_seq, thread_input)
       VALUES (?, ?, ?, 'running', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?14,
         (SELECT coalesce(${newestTurn("thread_seq", "?14")}, 0) + 1
          FROM threads WHERE thread_id = ?14), ?15)
       RETURNING thread_seq`,
    ).get(...args, r.thread_id, r.input)
    : isPgHive(db)
    ? statement(
      db,
      // One statement: the thread's row locked and read, and the run recorded with nothing between
      // (it waits for a transaction that holds the thread, then checks the row as left); a turn
      // that has the number already records nothing.
      `INSERT INTO runs (${columns}, thread_id, thread_seq, thread_input)
       SELECT ?1, ?2, ?3, 'running', ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14,
         CAST(?18 AS BIGINT) + 1, ?15
       FROM threads t
       WHERE t.thread_id = ?14 AND ${TURN_CONDITION}
       FOR UPDATE OF t
       ON CONFLICT ${TURN_NUMBER} DO NOTHING
       RETURNING thread_seq`,
    ).get(...args, r.thread_id, r.input, ...turnCondition(cond))
    : conditionalTurn(
      db,
      columns,
      [...args, r.thread_id, r.input, ...turnCondition(cond)],
      cond.turns,
    );
  if (!row) throw new ThreadMoved(r.thread_id);
  turnStarted(r.run_id, r.thread_id, Number((row as { thread_seq: number }).thread_seq), r.input);
}

/**
 * What a thread must still be for a turn to start without reading it first: its harness's, visible
 * to the viewer, free (or held by this run already: a run that waited for a slot), and with the
 * turn count this process knows its history at (lib/hive/thread_history.ts).
 */
export interface TurnCondition {
  harness: HarnessRef;
  /** Its turn count as this process knows it. */
  turns: number;
  /** Who asks: its owner, or null for anyone. */
  viewer: string | null;
  /**
   * The turn is the first of a thread made with its run (turns 0, held by it), whose row the caller
   * stores after the run's, in the same transaction: nothing is read, and the turn is number 1.
   */
  first?: true;
}

/**
 * SQL that is true when the run a thread's claim names (`<thread>.live_run_id`) has ended: such a
 * claim is free (a run's end leaves the claim naming it: lib/hive/threads.ts).
 *
 * @param thread The name the statement gives the thread's row (`t`, `threads`).
 * @returns The condition.
 */
export function lockRunEnded(thread: string): string {
  return `EXISTS (SELECT 1 FROM runs e WHERE e.run_id = ${thread}.live_run_id AND e.status <> 'running')`;
}

/**
 * SQL for a column of a thread's newest turn (null for a thread without turns): one entry of
 * `runs_thread_turns`, the thread's key then its turn, newest first, whatever the thread's length.
 *
 * @param column The column of `runs`.
 * @param thread The SQL that names the thread (`t.thread_id`, `?14`).
 * @returns The scalar subquery.
 */
export function newestTurn(column: string, thread: string): string {
  return `(SELECT r.${column} FROM runs r WHERE r.thread_id = ${thread}
       ORDER BY r.thread_seq DESC LIMIT 1)`;
}

/**
 * What {@link TurnCondition} asks of the thread `t`, its values bound as ?16 to ?19 (?18, the turns
 * known, is the number's: the turn is the next, and no other run may have that number). Its claim is
 * free when it names no run, this run of this process, or a run that has ended.
 */
const TURN_CONDITION = `t.harness_id = ?16 AND t.harness_dir = ?17
         AND (CAST(?19 AS TEXT) IS NULL OR t.owner = ?19)
         AND (t.live_run_id IS NULL
           OR (t.live_run_id = ?1 AND t.live_pid = ?12 AND t.live_start = ?13)
           OR ${lockRunEnded("t")})`;

/** The unique index that gives a thread's turn number to one run: an insert's conflict target. */
const TURN_NUMBER = "(thread_id, thread_seq) WHERE thread_id IS NOT NULL";

/** The values of a condition, in the order {@link TURN_CONDITION} binds them. */
function turnCondition(cond: TurnCondition): SqlValue[] {
  return [cond.harness.id, cond.harness.dir, cond.turns, cond.viewer];
}

/**
 * A turn recorded on SQLite on the condition that its thread is as known: one plain INSERT whose turn
 * number, the known count's next, is given only if the thread still is (else none, and the hive
 * refuses a thread's run without a number with `thread_moved`), and that records nothing when another
 * run has that number (a turn this process did not know of). SQLite runs an `INSERT … SELECT` into a
 * table with triggers, and a `RETURNING`, through a temporary table of its own, a quarter of the
 * statement's time (docs/performance.md).
 */
function conditionalTurn(
  db: Hive,
  columns: string,
  values: SqlValue[],
  turns: number,
): { thread_seq: number } | undefined {
  try {
    const added = statement(
      db,
      `INSERT INTO runs (${columns}, thread_id, thread_seq, thread_input)
       VALUES (?1, ?2, ?3, 'running', ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14,
         (SELECT ?18 + 1 FROM threads t WHERE t.thread_id = ?14 AND ${TURN_CONDITION}), ?15)
       ON CONFLICT ${TURN_NUMBER} DO NOTHING`,
    ).run(...values);
    return Number(added.changes) > 0 ? { thread_seq: turns + 1 } : undefined;
  } catch (err) {
    if (err instanceof Error && err.message.includes("thread_moved")) return undefined;
    throw err;
  }
}

/** The turn's thread is not as this process knew it: nothing was recorded. */
class ThreadMoved extends Error {
  constructor(readonly threadId: string) {
    super(`Thread ${threadId} changed since this process read it`);
  }
}

/**
 * Whether an error says a turn's thread changed since this process read it (a turn of another
 * process, a run holding it, a deleted thread, another viewer's): its start reads the thread then.
 *
 * @param err The error.
 * @returns True for that refusal.
 */
export function isThreadMoved(err: unknown): boolean {
  return err instanceof ThreadMoved;
}

/**
 * Records a run's end. With `whole` on a PostgreSQL hive, only when the hive's copy of its journal
 * holds all `journal.events` lines (checked in the same statement, so the lines sent without waiting
 * just before it — lib/hive/journal_lines.ts — travel with it in one round trip, and an end is never
 * recorded over a copy that lacks lines).
 *
 * @param db The hive.
 * @param result The run result.
 * @param journal The journal's head hash and event count.
 * @param options `whole`: require the hive's copy of the journal to be complete (PostgreSQL only).
 * @returns False when `whole` refused it (the copy lacks lines; nothing was written), else true.
 */
export function finishRun(
  db: Hive,
  result: RunResult,
  journal: { head_hash: string; events: number },
  options: { whole?: boolean } = {},
): boolean {
  const whole = options.whole === true && isPgHive(db);
  return writeRunEnd(db, result, journal, whole) || !whole;
}

/** The end's update; with `whole`, only when the hive holds every line. Whether a row changed. */
function writeRunEnd(
  db: Hive,
  result: RunResult,
  journal: { head_hash: string; events: number },
  whole: boolean,
): boolean {
  // A thread's turn keeps the whole output (its thread's lock is free once its status has ended).
  const turn = result.thread_id ? ", thread_output = ?" : "";
  const set =
    `UPDATE runs SET status = ?, output_excerpt = ?, cost_usd = ?, turns = ?, ended_at = ?, duration_ms = ?,
       head_hash = ?, events = ?, failure_signature = ?, error = ?, owner_pid = NULL, owner_start = NULL${turn}
     WHERE run_id = ?`;
  const args = [
    result.status,
    excerpt(result.output),
    result.cost_usd,
    result.turns,
    result.ended_at,
    result.duration_ms,
    journal.head_hash,
    journal.events,
    result.failure_signature,
    result.error ? runErrorText(result.error) : null,
    ...(result.thread_id ? [result.output] : []),
    result.run_id,
  ];
  if (!whole) return Number(statement(db, set).run(...args).changes) > 0;
  return Number(
    statement(db, `${set} AND (SELECT count(*) FROM journal_lines WHERE run_id = ?) = ?`)
      .run(...args, result.run_id, journal.events).changes,
  ) > 0;
}

/**
 * The `error` column of a run that did not succeed: its reason, then its message.
 *
 * @param error The run result's reason and message.
 * @returns `<reason>: <message>`.
 */
export function runErrorText(error: { reason: string; message: string }): string {
  return `${error.reason}: ${error.message}`;
}

/**
 * The reason of a run's `error` column (see {@link runErrorText}): the text before the first `": "`.
 * Reasons are parts joined by `:` without a space, so the first `": "` ends the reason.
 *
 * @example
 * ```ts
 * reasonOfRunError("stopped: The run was stopped"); // "stopped"
 * reasonOfRunError(null); // null
 * ```
 * @param error The column's text.
 * @returns The reason, or null.
 */
export function reasonOfRunError(error: string | null | undefined): string | null {
  if (!error) return null;
  const at = error.indexOf(": ");
  return at > 0 ? error.slice(0, at) : null;
}

function toRow(r: Record<string, unknown> | undefined): RunRow | undefined {
  if (!r) return undefined;
  const { owner_pid: _p, owner_start: _s, ...rest } = r;
  return { ...rest, reason: reasonOfRunError(rest.error as string | null) } as unknown as RunRow;
}

/**
 * One run, bound to its harness (id and folder): another harness's run, and the run of a copied
 * folder that kept the id, are not found.
 *
 * @param db The hive.
 * @param harness The harness that asks.
 * @param runId The run id.
 * @returns The row, or undefined.
 */
export function getRun(db: Hive, harness: HarnessRef, runId: string): RunRow | undefined {
  return toRow(
    statement(db, "SELECT * FROM runs WHERE run_id = ? AND harness_id = ? AND harness_dir = ?").get(
      runId,
      harness.id,
      harness.dir,
    ) as Record<string, unknown> | undefined,
  );
}

/**
 * One run by id alone, for local tools that may look across harnesses (the CLI's `trace`).
 *
 * @param db The hive.
 * @param runId The run id.
 * @returns The row, or undefined.
 */
export function getRunAnyHarness(db: Hive, runId: string): RunRow | undefined {
  return toRow(
    statement(db, "SELECT * FROM runs WHERE run_id = ?").get(runId) as
      | Record<string, unknown>
      | undefined,
  );
}

/** Filters of {@link listRuns}. */
export interface RunFilter {
  status?: string;
  limit?: number;
  /** Only runs started before this run id (ids sort by time), for paging. */
  before?: string;
}

/**
 * Runs of one harness, newest first.
 *
 * @param db The hive.
 * @param harness The harness (id and folder).
 * @param filter Status, limit and paging.
 * @returns The rows.
 */
export function listRuns(db: Hive, harness: HarnessRef, filter: RunFilter = {}): RunRow[] {
  const { sql, args } = listRunsQuery(harness, filter);
  return (statement(db, sql).all(...args) as Record<string, unknown>[]).map((r) => toRow(r)!);
}

/**
 * The query of {@link listRuns}: each filter is answered from an index, never by scanning a
 * harness's runs (runs by a finished status from `runs_harness_status`, which holds finished runs
 * only; running runs, which are few, from `runs_running`).
 *
 * @param harness The harness (id and folder).
 * @param filter Status, limit and paging.
 * @returns The SQL and its arguments.
 * @throws FrameworkError `bad_input` for an unknown status.
 */
export function listRunsQuery(
  harness: HarnessRef,
  filter: RunFilter,
): { sql: string; args: (string | number)[] } {
  const status = filter.status;
  if (status !== undefined && !isRunStatus(status) && status !== "running") {
    throw badInput(
      `Unknown status ${JSON.stringify(status)}: expected one of ${
        RUN_STATUSES.join(", ")
      }, running`,
    );
  }
  const where = ["harness_id = ?", "harness_dir = ?"];
  const args: (string | number)[] = [harness.id, harness.dir];
  if (status === "running") where.push("status = 'running'");
  else if (status) {
    // The second term is the index's own condition, which a bound status cannot prove.
    where.push("status = ?", "status != 'running'");
    args.push(status);
  }
  if (filter.before) {
    where.push("run_id < ?");
    args.push(filter.before);
  }
  args.push(Math.max(1, Math.min(filter.limit ?? 50, 1000)));
  const index = status === "running" ? " INDEXED BY runs_running" : "";
  return {
    sql: `SELECT * FROM runs${index} WHERE ${where.join(" AND ")} ORDER BY run_id DESC LIMIT ?`,
    args,
  };
}

/**
 * The harness a run belongs to (id and folder).
 *
 * @param row The run row.
 * @returns Its binding.
 */
export function harnessOfRun(row: RunRow): HarnessRef {
  return { id: row.harness_id, dir: row.harness_dir };
}

/** A failed run, as evidence for a proposal. */
export interface FailedRun {
  run_id: string;
  failure_signature: string | null;
  trace_path: string;
}

/**
 * The newest failed runs of a harness (those with a failure signature), without the runs that ended
 * for a reason outside the harness (stopped by a person, their process gone: `NOT_HARNESS_FAILURES`).
 *
 * @param db The hive.
 * @param harness The harness (id and folder).
 * @param limit At most this many.
 * @returns The runs, newest first.
 */
export function recentFailedRuns(db: Hive, harness: HarnessRef, limit: number): FailedRun[] {
  return statement(
    db,
    `SELECT run_id, failure_signature, trace_path FROM runs
     WHERE harness_id = ? AND harness_dir = ? AND live = 1 AND failure_signature IS NOT NULL
       AND failure_signature NOT IN (SELECT value FROM json_each(?))
     ORDER BY run_id DESC LIMIT ?`,
  ).all(
    harness.id,
    harness.dir,
    JSON.stringify(NOT_HARNESS_FAILURES),
    limit,
  ) as unknown as FailedRun[];
}

/**
 * Run ids of a harness that failed with one signature after a time (automatic proposals count them).
 *
 * @param db The hive.
 * @param harness The harness (id and folder).
 * @param signature The failure signature.
 * @param since Only runs that ended after this ISO time ("" for all).
 * @param limit At most this many.
 * @returns The run ids, newest first.
 */
export function failuresWithSignature(
  db: Hive,
  harness: HarnessRef,
  signature: string,
  since: string,
  limit: number,
): string[] {
  return (statement(
    db,
    `SELECT run_id FROM runs
     WHERE harness_id = ? AND harness_dir = ? AND live = 1 AND failure_signature = ? AND ended_at > ?
     ORDER BY run_id DESC LIMIT ?`,
  ).all(harness.id, harness.dir, signature, since, limit) as { run_id: string }[]).map((r) =>
    r.run_id
  );
}

/**
 * The runs started from a run: resumed forks (with their re-entry seq) and delegated runs, oldest
 * first.
 *
 * @param db The hive.
 * @param runId The parent run.
 * @returns The child runs.
 */
export function childRuns(db: Hive, runId: string): RunRow[] {
  return (statement(db, "SELECT * FROM runs WHERE parent_run_id = ? ORDER BY run_id")
    .all(runId) as Record<string, unknown>[]).map((r) => toRow(r)!);
}

/**
 * When a harness folder's first run started: files its runs wrote are newer than this.
 *
 * @param db The hive.
 * @param harness The harness.
 * @returns The ISO time, or null when it never ran.
 */
export function firstRunStartedAt(db: Hive, harness: HarnessRef): string | null {
  const row = statement(
    db,
    "SELECT MIN(started_at) AS at FROM runs WHERE harness_id = ? AND harness_dir = ?",
  ).get(harness.id, harness.dir) as { at: string | null } | undefined;
  return row?.at ?? null;
}

/**
 * The trace folders inside a folder that the hive knows of: the folder of every journal recorded in
 * the runs table (`<folder>/<run_id>.jsonl`) that lies within `dir`, whichever harness ran it and
 * whatever `logging.trace_dir` said then. A copy of a harness leaves them all out, and a run refuses
 * them all, not only the folder its spec names today. One range on the `trace_folders` key (kept by
 * a trigger as runs are recorded): it reads the folders inside `dir` and nothing else, at any number
 * of runs.
 *
 * @param db The hive.
 * @param dir A folder (absolute, symlinks resolved).
 * @returns The folders, absolute, sorted.
 */
export function traceFoldersWithin(db: Hive, dir: string): string[] {
  const base = dir.endsWith("/") ? dir.slice(0, -1) : dir;
  // Inside `base`: after `base/`, before `base0` ('0' follows '/').
  return (statement(
    db,
    "SELECT folder FROM trace_folders WHERE folder >= ?1 || '/' AND folder < ?1 || '0' ORDER BY folder",
  ).all(base) as { folder: string }[]).map((r) => r.folder);
}

/** Live-run figures of one spec version (the `metrics` of a comparison, docs/evaluations.md). */
export interface VersionMetrics {
  /** Its finished live runs, as the timeline counts them ({@link runFiguresByVersion}). */
  runs: number;
  /** Its finished evaluation runs outside the live figures, as the timeline counts them. */
  eval_runs: number;
  success_rate: number | null;
  /** Mean cost of a run, USD. */
  cost_usd: number | null;
  avg_turns: number | null;
  p50_duration_ms: number | null;
}

/**
 * The live runs made with one spec version: how many, how well, how costly, how long; and how many
 * evaluation runs it has beside them. The counts are the timeline's ({@link runFiguresByVersion}).
 *
 * @param db The hive.
 * @param harness The harness.
 * @param version The spec version.
 * @param counts The version's figures from {@link runFiguresByVersion}, when already read.
 * @returns The figures (nulls when the version has no finished run).
 */
export function versionMetrics(
  db: Hive,
  harness: HarnessRef,
  version: string,
  counts: VersionRunFigures | undefined = runFiguresByVersion(db, harness, [version]).get(version),
): VersionMetrics {
  const row = statement(
    db,
    `SELECT count(*) AS n, total(status = 'success') AS ok, total(cost_usd) AS cost, total(turns) AS turns
     FROM runs WHERE harness_id = ? AND harness_dir = ? AND spec_version = ? AND live = 1
       AND status != 'running'`,
  ).get(harness.id, harness.dir, version) as { n: number; ok: number; cost: number; turns: number };
  const n = Number(row.n);
  const p50 = n === 0 ? null : (statement(
    db,
    `SELECT duration_ms FROM runs WHERE harness_id = ? AND harness_dir = ? AND spec_version = ?
       AND live = 1 AND duration_ms IS NOT NULL ORDER BY duration_ms LIMIT 1 OFFSET ?`,
  ).get(harness.id, harness.dir, version, Math.floor((n - 1) / 2)) as
    | { duration_ms: number }
    | undefined)?.duration_ms ?? null;
  return {
    runs: counts?.runs ?? 0,
    eval_runs: counts?.eval_runs ?? 0,
    success_rate: n ? row.ok / n : null,
    cost_usd: n ? Math.round((row.cost / n) * 1e9) / 1e9 : null,
    avg_turns: n ? row.turns / n : null,
    p50_duration_ms: p50,
  };
}

/**
 * The failure signatures of one spec version's runs (live and eval), each with its count and an
 * example run.
 *
 * @param db The hive.
 * @param harness The harness.
 * @param version The spec version.
 * @returns The signatures, most frequent first.
 */
export function versionSignatures(
  db: Hive,
  harness: HarnessRef,
  version: string,
): { signature: string; count: number; example_run_id: string }[] {
  return (statement(
    db,
    `SELECT failure_signature AS signature, count(*) AS count, max(run_id) AS example_run_id
     FROM runs WHERE harness_id = ? AND harness_dir = ? AND spec_version = ?
       AND failure_signature IS NOT NULL
     GROUP BY failure_signature ORDER BY count DESC, signature`,
  ).all(harness.id, harness.dir, version) as {
    signature: string;
    count: number;
    example_run_id: string;
  }[]).map((r) => ({ ...r, count: Number(r.count) }));
}

/**
 * The runs of one spec version, in one line. The timeline of versions and the comparison of two
 * both show these counts, so they always agree.
 */
export interface VersionRunFigures {
  /** Its finished runs that count in the harness's figures (`live`): what the rates are over. */
  runs: number;
  /**
   * Its finished evaluation runs outside those figures: cases run in the harness's folder, and
   * cases of an older version or a proposal measured on a temporary copy of the folder.
   */
  eval_runs: number;
  /** Its runs still going (counted in neither, until they finish). */
  running: number;
  /** Its finished live runs' success rate and mean cost (null without any). */
  success_rate: number | null;
  cost_usd: number | null;
}

/**
 * The runs of every spec version of a harness: its finished runs in one pass over
 * `runs_harness_version` (which holds finished runs only), the runs its evaluations made on
 * temporary copies through `evals_harness` and `runs_eval`, its running runs from `runs_running`.
 *
 * @example
 * ```ts
 * import { openHive } from "./open.ts";
 *
 * const figures = runFiguresByVersion(openHive(), { id: "hello", dir: "/h/hello" }).get("3f2a…");
 * `${figures?.runs ?? 0} live · ${figures?.eval_runs ?? 0} eval runs`;
 * ```
 * @param db The hive.
 * @param harness The harness.
 * @param versions Only these versions (a comparison's two), else every version.
 * @returns The figures by version.
 */
export function runFiguresByVersion(
  db: Hive,
  harness: HarnessRef,
  versions?: readonly string[],
): Map<string, VersionRunFigures> {
  const only = (column: string) =>
    versions ? ` AND ${column} IN (${versions.map(() => "?").join(", ")})` : "";
  const args = [harness.id, harness.dir, ...(versions ?? [])];
  const finished = statement(
    db,
    `SELECT spec_version, total(live = 1) AS live, total(live = 0) AS evals,
       total(live = 1 AND status = 'success') AS ok,
       total(CASE WHEN live = 1 THEN cost_usd END) AS cost
     FROM runs WHERE harness_id = ? AND harness_dir = ?${only("spec_version")}
       AND status != 'running'
     GROUP BY spec_version`,
  ).all(...args) as {
    spec_version: string;
    live: number;
    evals: number;
    ok: number;
    cost: number;
  }[];
  const onCopies = statement(
    db,
    `SELECT r.spec_version, count(*) AS n FROM evals e JOIN runs r ON r.eval_id = e.eval_id
     WHERE e.harness_id = ? AND e.harness_dir = ?${only("e.spec_version")}
       AND r.harness_dir != e.harness_dir AND r.live = 0 AND r.status != 'running'
     GROUP BY r.spec_version`,
  ).all(...args) as { spec_version: string; n: number }[];
  const running = statement(
    db,
    `SELECT spec_version, count(*) AS n FROM runs INDEXED BY runs_running
     WHERE status = 'running' AND harness_id = ? AND harness_dir = ?${only("spec_version")}
     GROUP BY spec_version`,
  ).all(...args) as { spec_version: string; n: number }[];
  const figures = new Map<string, VersionRunFigures>(finished.map((r) => [r.spec_version, {
    runs: Number(r.live),
    eval_runs: Number(r.evals),
    running: 0,
    success_rate: r.live ? r.ok / r.live : null,
    cost_usd: r.live ? Math.round((r.cost / r.live) * 1e9) / 1e9 : null,
  }]));
  const of = (version: string) => {
    let f = figures.get(version);
    if (!f) {
      f = { runs: 0, eval_runs: 0, running: 0, success_rate: null, cost_usd: null };
      figures.set(version, f);
    }
    return f;
  };
  for (const r of onCopies) of(r.spec_version).eval_runs += Number(r.n);
  for (const r of running) of(r.spec_version).running += Number(r.n);
  return figures;
}
