/**
 * Reading a run's trace: the hive row, the journal's events and the hash-chain integrity. Lookups are
 * bound to a harness (another harness's run is not found) unless the caller is the local CLI.
 *
 * @module
 */

import { notFound } from "../errors.ts";
import type { HarnessRef } from "../hive/harnesses.ts";
import { type Hive, openHive } from "../hive/open.ts";
import { journalFileOf } from "./hive_copy.ts";
import { getRun, getRunAnyHarness, type RunRow } from "../hive/runs.ts";
import type { JournalEvent } from "./event.ts";
import { indexJournal, readEventRange } from "./journal_index.ts";
import { type Integrity, verifyJournalFile } from "./verify.ts";

/** A run's trace (the `/trace/{run_id}` payload). */
export interface Trace {
  run_id: string;
  harness_id: string;
  status: RunRow["status"];
  integrity: Integrity;
  events: JournalEvent[];
  /** The hive row. */
  run: RunRow;
}

/**
 * Finds a run for a harness (or, with `harness` null, any harness) or throws `not_found`.
 *
 * @param db The hive.
 * @param harness The harness that asks (id and folder), or null for a local lookup.
 * @param runId The run id.
 * @returns The row.
 */
export function findRun(db: Hive, harness: HarnessRef | null, runId: string): RunRow {
  const row = harness === null ? getRunAnyHarness(db, runId) : getRun(db, harness, runId);
  if (!row) throw notFound(`Unknown run ${JSON.stringify(runId)}`, { run_id: runId });
  return row;
}

/**
 * Reads a run's journal bytes verbatim (for export: the hash chain still verifies).
 *
 * @param row The run row.
 * @param db The hive (a PostgreSQL hive's copy is read: the run may be another host's).
 * @returns The bytes.
 */
export async function readJournalBytes(row: RunRow, db: Hive = openHive()): Promise<Uint8Array> {
  try {
    return await Deno.readFile(await journalFileOf(db, row));
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) throw missingJournal(row);
    throw err;
  }
}

/**
 * Checks a run's hash chain as the journal streams from disk, without reading its events into memory
 * (`framework trace --verify`).
 *
 * @param db The hive.
 * @param harness The harness that asks (id and folder), or null for a local lookup.
 * @param runId The run id.
 * @returns The run and its integrity.
 */
export async function verifyTrace(
  db: Hive,
  harness: HarnessRef | null,
  runId: string,
): Promise<{ run: RunRow; integrity: Integrity }> {
  const run = findRun(db, harness, runId);
  try {
    return { run, integrity: await verifyJournalFile(await journalFileOf(db, run)) };
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) throw missingJournal(run);
    throw err;
  }
}

function missingJournal(row: RunRow) {
  return notFound(`The journal of run ${JSON.stringify(row.run_id)} is missing`, {
    run_id: row.run_id,
  });
}

/**
 * A run's trace with its integrity checked.
 *
 * @example
 * ```ts
 * import { openHive } from "../hive/open.ts";
 *
 * const t = await getTrace(openHive(), { id: "hello", dir: "/work/harnesses/hello" }, "run_01…");
 * t.integrity.ok;
 * ```
 * @param db The hive.
 * @param harness The harness that asks (id and folder), or null for a local lookup.
 * @param runId The run id.
 * @returns The trace.
 */
export async function getTrace(
  db: Hive,
  harness: HarnessRef | null,
  runId: string,
): Promise<Trace> {
  const { event_count: _count, ...trace } = await getTracePage(db, harness, runId);
  return trace;
}

/**
 * A page of a run's trace: the events of lines `from` to `from + limit - 1` (1-based; all of them by
 * default), how many there are, and the integrity of the whole journal. The journal is verified and
 * indexed once while it is unchanged, then each page costs only its own lines.
 *
 * @example
 * ```ts
 * import { openHive } from "../hive/open.ts";
 *
 * const page = await getTracePage(openHive(), null, "run_01…", { from: 501, limit: 500 });
 * page.event_count; page.integrity.ok;
 * ```
 * @param db The hive.
 * @param harness The harness that asks (id and folder), or null for a local lookup.
 * @param runId The run id.
 * @param range The first line (default 1) and how many (default: the rest).
 * @returns The trace with its page of events and the count of all of them.
 */
export async function getTracePage(
  db: Hive,
  harness: HarnessRef | null,
  runId: string,
  range: { from?: number; limit?: number } = {},
): Promise<Trace & { event_count: number }> {
  const run = findRun(db, harness, runId);
  try {
    const path = await journalFileOf(db, run);
    const index = await indexJournal(path);
    const from = range.from ?? 1;
    return {
      run_id: run.run_id,
      harness_id: run.harness_id,
      status: run.status,
      integrity: index.integrity,
      events: await readEventRange(path, index, from, range.limit ?? index.lines + 1),
      event_count: index.lines,
      run,
    };
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) throw missingJournal(run);
    throw err;
  }
}
