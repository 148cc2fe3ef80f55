/**
 * Runs left `running` by a process that died are marked `error` (reason `interrupted`) when the hive
 * is next opened, once their owner is certainly gone.
 *
 * @module
 */

import type { DatabaseSync } from "node:sqlite";
import { isProcessAlive } from "../process_identity.ts";
import { statement } from "../sqlite/statements.ts";

/**
 * Marks the runs of dead processes as interrupted.
 *
 * @param db The hive.
 * @returns The run ids marked.
 */
export function markInterruptedRuns(db: DatabaseSync): string[] {
  const rows = statement(
    db,
    "SELECT run_id, started_at, owner_pid, owner_start FROM runs WHERE status = 'running'",
  )
    .all() as {
      run_id: string;
      started_at: string;
      owner_pid: number | null;
      owner_start: string | null;
    }[];
  const marked: string[] = [];
  for (const r of rows) {
    if (r.owner_pid !== null && isProcessAlive(r.owner_pid, r.owner_start)) continue;
    const now = new Date();
    const result = statement(
      db,
      `UPDATE runs SET status = 'error', error = 'interrupted: the process running it stopped',
         failure_signature = 'error:interrupted', ended_at = ?, duration_ms = ?, owner_pid = NULL,
         owner_start = NULL
       WHERE run_id = ? AND status = 'running'`,
    ).run(now.toISOString(), Math.max(0, now.getTime() - Date.parse(r.started_at)), r.run_id);
    if (Number(result.changes) > 0) marked.push(r.run_id);
  }
  return marked;
}
