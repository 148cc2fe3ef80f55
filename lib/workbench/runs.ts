/**
 * Runs as the workbench shows them: any target harness's run by id (the copilot's own runs are never
 * shown), with its trace, its live flag, and the folded context at a model call.
 *
 * @module
 */

import { notFound } from "../errors.ts";
import type { Hive } from "../hive/open.ts";
import type { HarnessRef } from "../hive/harnesses.ts";
import { harnessOfRun, listRuns, type RunRow } from "../hive/runs.ts";
import { type ThreadRecord, threadsByIds } from "../hive/threads.ts";
import { foldContext, type FoldedContext } from "../journal/fold.ts";
import { findRun, getTrace, getTracePage, readJournalBytes, type Trace } from "../journal/trace.ts";
import { parseJournal } from "../journal/verify.ts";
import { type HandOffs, handOffsOf } from "../hand_offs.ts";
import { activeRun } from "../runner/active_runs.ts";
import { liveState, type LiveView } from "../runs/controls.ts";
import { runEventFrames } from "../runs/events.ts";
import { type RunCursor, type RunSetFrame, runSetFrames } from "../runs/run_set.ts";
import { COPILOT_ID } from "./catalog.ts";

/**
 * A target harness's run by id, or `not_found` (also for the copilot's own runs).
 *
 * @param db The hive.
 * @param runId The run id.
 * @returns The row.
 */
export function targetRun(db: Hive, runId: string): RunRow {
  const row = findRun(db, null, runId);
  if (row.harness_id === COPILOT_ID) throw notFound(`Unknown run ${JSON.stringify(runId)}`);
  return row;
}

/** A run's hand-offs as the chat shows them (`GET /api/runs/{id}/hand-offs`). */
export interface RunHandOffs {
  run_id: string;
  harness_id: string;
  status: RunRow["status"];
  /** The run's cost, its children's included (of a run still going: as the hive has it). */
  cost_usd: number;
  hand_offs: HandOffs;
}

/**
 * A target run's hand-offs, read from its journal (as written so far, for a run still going): one
 * line per hand-off, the declines, the referrals and the delegated share of the cost.
 *
 * @param db The hive.
 * @param runId The run id.
 * @returns The hand-offs.
 * @throws `not_found` for an unknown run or the copilot's own.
 */
export async function runHandOffs(db: Hive, runId: string): Promise<RunHandOffs> {
  const row = targetRun(db, runId);
  const h = handOffsOf(parseJournal(await readJournalBytes(row)));
  return {
    run_id: row.run_id,
    harness_id: row.harness_id,
    status: row.status,
    cost_usd: row.cost_usd,
    hand_offs: h,
  };
}

/** A run as Trace shows it (`GET /api/runs/{id}`). */
export type RunView = Omit<Trace, "events"> & {
  events: Trace["events"];
  /** How many events the journal holds (the events may be cut by `limit`). */
  event_count: number;
  /** Whether the run is still going in this process. */
  live: boolean;
  /** A live run's mode and model, and the modes it may switch to (null once it has ended). */
  live_state: LiveView | null;
};

/**
 * A target run with its integrity-checked trace (the whole journal's verdict), a page of its events
 * and whether it is live.
 *
 * @param db The hive.
 * @param runId The run id.
 * @param limit At most this many events (all when undefined).
 * @param from The first event's line, 1-based (for an intact journal, its seq).
 * @returns The view.
 */
export async function runView(
  db: Hive,
  runId: string,
  limit?: number,
  from = 1,
): Promise<RunView> {
  const row = targetRun(db, runId);
  const trace = await getTracePage(db, harnessOfRun(row), row.run_id, { from, limit });
  return {
    ...trace,
    live: !!activeRun(row.run_id),
    live_state: liveState(row.run_id),
  };
}

/**
 * Follows several target runs over one stream (`GET /api/runs/events`): each run is looked up first,
 * so an unknown run (or one of the copilot's) is `not_found` before anything is streamed.
 *
 * @param db The hive.
 * @param cursors The runs and where the client stands in each.
 * @param signal Ends the stream (the client went away).
 * @returns Their frames, merged.
 */
export function followTargetRuns(
  db: Hive,
  cursors: RunCursor[],
  signal?: AbortSignal,
): AsyncGenerator<RunSetFrame> {
  const sources = cursors.map((cursor) => {
    const row = targetRun(db, cursor.run_id);
    return {
      cursor,
      frames: () => runEventFrames(db, harnessOfRun(row), row.run_id, cursor.after, signal),
    };
  });
  return runSetFrames(sources, signal);
}

/**
 * The context a model call of a target run was given, folded from the journal.
 *
 * @param db The hive.
 * @param runId The run id.
 * @param seq The model call's seq.
 * @returns The folded context.
 */
export async function runContext(db: Hive, runId: string, seq: number): Promise<FoldedContext> {
  const row = targetRun(db, runId);
  return foldContext((await getTrace(db, harnessOfRun(row), row.run_id)).events, seq);
}

/** A page of the Runs list: the runs, and the threads they are turns of. */
export interface RunsPage {
  /** Newest first; a live run also says its mode and model. */
  runs: (RunRow & { live_state?: LiveView })[];
  /** The threads of the page's runs (a deleted thread is missing: its runs keep its id). */
  threads: ThreadRecord[];
}

/**
 * A page of a harness's runs, newest first, each live one with its mode and model, with the threads
 * they are turns of (the Runs list groups a thread's runs under it).
 *
 * @param db The hive.
 * @param harness The harness.
 * @param options Filter, page size and cursor.
 * @returns The runs and their threads.
 */
export function harnessRuns(
  db: Hive,
  harness: HarnessRef,
  options: Parameters<typeof listRuns>[2],
): RunsPage {
  const runs = listRuns(db, harness, options).map((r) => {
    const state = r.status === "running" ? liveState(r.run_id) : null;
    return state ? { ...r, live_state: state } : r;
  });
  const threadIds = runs.flatMap((r) => r.thread_id ? [r.thread_id] : []);
  return { runs, threads: threadsByIds(db, harness, threadIds) };
}
