/**
 * Tool approvals in the hive: one row per request, bound to its harness (id and folder) like its run.
 * A request stays `pending` until a decision moves it to `approved`, `denied` or `expired` — one
 * conditional update, so it is decided once whatever races it, in this process or another sharing
 * the hive.
 *
 * @module
 */

import { notFound } from "../errors.ts";
import { newId } from "../ids.ts";
import { statement } from "../sqlite/statements.ts";
import type { HarnessRef } from "./harnesses.ts";
import type { Hive } from "./open.ts";

/** A request's status. */
export type ApprovalStatus = "pending" | "approved" | "denied" | "expired";

/** A request as every face shows it (docs/control-plane.md, Tool approvals). */
export interface ApprovalRecord {
  approval_id: string;
  run_id: string;
  harness_id: string;
  call_id: string;
  tool: string;
  arguments: Record<string, unknown>;
  arguments_hash: string;
  turn: number;
  status: ApprovalStatus;
  /** Who started the run: a key id, or a local face. */
  requested_by: string | null;
  requested_at: string;
  expires_at: string;
  decided_at: string | null;
  decided_by: string | null;
  reason: string | null;
  /** The run that took the request's run up after a restart, when there was one. */
  resumed_run_id: string | null;
}

interface Row extends Omit<ApprovalRecord, "arguments"> {
  harness_dir: string;
  arguments: string;
}

function toRecord(r: Row): ApprovalRecord {
  const { harness_dir: _dir, ...rest } = r;
  return { ...rest, arguments: JSON.parse(r.arguments) };
}

/** The one answer for a request that is not there (or not the asker's harness's). */
function unknownApproval(approvalId: string) {
  return notFound(`Unknown approval ${JSON.stringify(approvalId)}`, { approval_id: approvalId });
}

/** What a new request records. */
export interface NewApproval {
  run_id: string;
  harness: HarnessRef;
  call_id: string;
  tool: string;
  arguments: Record<string, unknown>;
  arguments_hash: string;
  turn: number;
  requested_by: string | null;
  expires_at: string;
  /** A decision made as it is asked (too many runs waiting). */
  decided?: { status: Exclude<ApprovalStatus, "pending">; by: string; reason: string };
}

/**
 * Records a request.
 *
 * @param db The hive.
 * @param a The request.
 * @returns Its record.
 */
export function insertApproval(db: Hive, a: NewApproval): ApprovalRecord {
  const now = new Date().toISOString();
  const row: Row = {
    approval_id: newId("apr"),
    run_id: a.run_id,
    harness_id: a.harness.id,
    harness_dir: a.harness.dir,
    call_id: a.call_id,
    tool: a.tool,
    arguments: JSON.stringify(a.arguments),
    arguments_hash: a.arguments_hash,
    turn: a.turn,
    status: a.decided?.status ?? "pending",
    requested_by: a.requested_by,
    requested_at: now,
    expires_at: a.expires_at,
    decided_at: a.decided ? now : null,
    decided_by: a.decided?.by ?? null,
    reason: a.decided?.reason ?? null,
    resumed_run_id: null,
  };
  statement(
    db,
    `INSERT INTO approvals (approval_id, run_id, harness_id, harness_dir, call_id, tool, arguments,
       arguments_hash, turn, status, requested_by, requested_at, expires_at, decided_at, decided_by,
       reason)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    row.approval_id,
    row.run_id,
    row.harness_id,
    row.harness_dir,
    row.call_id,
    row.tool,
    row.arguments,
    row.arguments_hash,
    row.turn,
    row.status,
    row.requested_by,
    row.requested_at,
    row.expires_at,
    row.decided_at,
    row.decided_by,
    row.reason,
  );
  return toRecord(row);
}

/**
 * One request by id alone (the run waiting for it looks it up), or undefined.
 *
 * @param db The hive.
 * @param approvalId The request.
 * @returns Its record.
 */
export function findApproval(db: Hive, approvalId: string): ApprovalRecord | undefined {
  const row = statement(db, "SELECT * FROM approvals WHERE approval_id = ?").get(approvalId) as
    | Row
    | undefined;
  return row ? toRecord(row) : undefined;
}

/**
 * One request of a harness; another harness's is not found.
 *
 * @param db The hive.
 * @param harness The harness.
 * @param approvalId The request.
 * @returns Its record.
 * @throws `not_found`.
 */
export function getApproval(db: Hive, harness: HarnessRef, approvalId: string): ApprovalRecord {
  const row = statement(
    db,
    "SELECT * FROM approvals WHERE approval_id = ? AND harness_id = ? AND harness_dir = ?",
  ).get(approvalId, harness.id, harness.dir) as Row | undefined;
  if (!row) throw unknownApproval(approvalId);
  return toRecord(row);
}

/**
 * The harness (id and folder) a request belongs to, whichever harness it is: a face that offers
 * several harnesses (the workbench) checks that it offers this one before it shows the request.
 *
 * @param db The hive.
 * @param approvalId The request.
 * @returns Its harness.
 * @throws `not_found` for an unknown request.
 */
export function approvalHarness(db: Hive, approvalId: string): HarnessRef {
  const row = statement(
    db,
    "SELECT harness_id, harness_dir FROM approvals WHERE approval_id = ?",
  ).get(approvalId) as { harness_id: string; harness_dir: string } | undefined;
  if (!row) throw unknownApproval(approvalId);
  return { id: row.harness_id, dir: row.harness_dir };
}

/**
 * A harness's requests, newest first: the pending ones, or those decided.
 *
 * @param db The hive.
 * @param harness The harness.
 * @param which `pending`, `decided` (approved, denied or expired), or every request.
 * @param limit At most this many.
 * @returns The records.
 */
export function listApprovals(
  db: Hive,
  harness: HarnessRef,
  which: "pending" | "decided" | "all",
  limit = 100,
): ApprovalRecord[] {
  const rows = statement(
    db,
    `SELECT * FROM approvals WHERE harness_id = ?1 AND harness_dir = ?2
       AND (CAST(?3 AS TEXT) = 'all' OR (?3 = 'pending' AND status = 'pending')
         OR (?3 = 'decided' AND status != 'pending'))
     ORDER BY approval_id DESC LIMIT ?4`,
  ).all(harness.id, harness.dir, which, limit) as unknown as Row[];
  return rows.map(toRecord);
}

/**
 * Decides a pending request: one conditional update, so only one decision ever lands.
 *
 * @param db The hive.
 * @param approvalId The request.
 * @param d The decision, who made it and why.
 * @returns Whether this decision landed (false: it was decided already).
 */
export function decidePending(
  db: Hive,
  approvalId: string,
  d: { status: Exclude<ApprovalStatus, "pending">; by: string; reason: string | null },
): boolean {
  const result = statement(
    db,
    `UPDATE approvals SET status = ?, decided_at = ?, decided_by = ?, reason = ?
     WHERE approval_id = ? AND status = 'pending'`,
  ).run(d.status, new Date().toISOString(), d.by, d.reason, approvalId);
  return Number(result.changes) === 1;
}

/**
 * Records the run that took an approved request's run up again.
 *
 * @param db The hive.
 * @param approvalId The request.
 * @param runId The new run.
 */
export function setResumedRun(db: Hive, approvalId: string, runId: string): void {
  statement(db, "UPDATE approvals SET resumed_run_id = ? WHERE approval_id = ?").run(
    runId,
    approvalId,
  );
}

/**
 * Whether a run has a request still pending (a run that stopped while it waited).
 *
 * @param db The hive.
 * @param runId The run.
 * @returns Whether one is pending.
 */
export function hasPendingApproval(db: Hive, runId: string): boolean {
  return statement(
    db,
    "SELECT 1 FROM approvals WHERE run_id = ? AND status = 'pending' LIMIT 1",
  ).get(runId) !== undefined;
}
