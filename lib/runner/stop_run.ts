/**
 * Stopping a live run: the run ends at once with status `error` and reason `stopped`, its journal
 * closed with `run_finished` like any other end.
 *
 * @module
 */

import { FrameworkError } from "../errors.ts";
import type { HarnessRef } from "../hive/harnesses.ts";
import type { Hive } from "../hive/open.ts";
import { findRun } from "../journal/trace.ts";
import { activeRun } from "./active_runs.ts";
import type { RunResult } from "../run_types.ts";

/**
 * Stops a run that is still going in this process and waits for its result.
 *
 * @example
 * ```ts
 * const result = await stopLiveRun(openHive(), null, "run_01…");
 * console.log(result.status); // "error", failure signature "error:stopped"
 * ```
 * @param db The hive.
 * @param harness The harness that asks (another harness's run is not found), or null for any.
 * @param runId The run.
 * @returns The run's result.
 * @throws `not_found` for an unknown run; `conflict` for a run that has already ended (or is owned
 *   by another process).
 */
export async function stopLiveRun(
  db: Hive,
  harness: HarnessRef | null,
  runId: string,
): Promise<RunResult> {
  const row = findRun(db, harness, runId);
  const handle = activeRun(row.run_id);
  if (!handle) {
    throw new FrameworkError(
      "conflict",
      row.status === "running"
        ? `Run ${JSON.stringify(runId)} is going in another process; stop it there`
        : `Run ${JSON.stringify(runId)} has already ended (${row.status})`,
      { run_id: row.run_id, status: row.status },
    );
  }
  handle.stop();
  return await handle.result;
}
