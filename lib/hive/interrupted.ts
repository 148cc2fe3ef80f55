/**
 * Runs left `running` by a process that died are marked `error` (reason `interrupted`) when the hive
 * is next opened, once their owner is certainly gone — reason `interrupted_awaiting_approval` for a run
 * that was waiting for a person (its request stays pending: approving it takes the run up again).
 * Only this host's owners are judged (lib/process_identity.ts): a run of another host sharing the
 * hive is left to that host.
 *
 * @module
 */

import type { SqlConnection } from "../sqlite/statements.ts";
import { isProcessAlive } from "../process_identity.ts";
import { statement } from "../sqlite/statements.ts";

/** A running run's owner, as the runs table keeps it. */
interface Owned {
  run_id: string;
  started_at: string;
  owner_pid: number | null;
  owner_start: string | null;
}

/** Marks one run interrupted when its owner is gone; whether it was marked. */
function markIfOrphaned(db: SqlConnection, r: Owned): boolean {
  if (r.owner_pid !== null && isProcessAlive(r.owner_pid, r.owner_start)) return false;
  const now = new Date();
  const result = statement(
    db,
    `UPDATE runs SET status = 'error',
       error = CASE WHEN waiting THEN 'interrupted_awaiting_approval: the process stopped while the run waited for a person; approve its request to take it up again'
         ELSE 'interrupted: the process running it stopped' END,
       failure_signature = CASE WHEN waiting THEN 'error:interrupted_awaiting_approval'
         ELSE 'error:interrupted' END,
       ended_at = ?, duration_ms = ?, owner_pid = NULL, owner_start = NULL
     FROM (SELECT EXISTS (SELECT 1 FROM approvals a WHERE a.run_id = ?3 AND a.status = 'pending')
       AS waiting) AS w
     WHERE run_id = ?3 AND status = 'running'`,
  ).run(now.toISOString(), Math.max(0, now.getTime() - Date.parse(r.started_at)), r.run_id);
  return Number(result.changes) > 0;
}

/**
 * Marks the runs of dead processes as interrupted.
 *
 * @param db The hive.
 * @returns The run ids marked.
 */
export function markInterruptedRuns(db: SqlConnection): string[] {
  const rows = statement(
    db,
    "SELECT run_id, started_at, owner_pid, owner_start FROM runs WHERE status = 'running'",
  ).all() as unknown as Owned[];
  return rows.filter((r) => markIfOrphaned(db, r)).map((r) => r.run_id);
}

/**
 * Marks one run interrupted when it is still `running` but its process is gone (a process that shares
 * the hive finds out without opening it again).
 *
 * @param db The hive.
 * @param runId The run.
 * @returns Whether it was marked.
 */
export function markRunInterruptedIfOrphaned(db: SqlConnection, runId: string): boolean {
  const row = statement(
    db,
    "SELECT run_id, started_at, owner_pid, owner_start FROM runs WHERE run_id = ? AND status = 'running'",
  ).get(runId) as Owned | undefined;
  return row ? markIfOrphaned(db, row) : false;
}
