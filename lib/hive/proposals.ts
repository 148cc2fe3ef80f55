/**
 * Proposals in the hive: the whole record as JSON, with the harness, status and times as columns for
 * filtering. Every lookup by id is bound to a harness; another harness's proposal is not found.
 *
 * @module
 */

import { badInput, notFound } from "../errors.ts";
import { PROPOSAL_STATUSES, type ProposalStatus } from "../proposal_status.ts";
import type { HarnessRef } from "./harnesses.ts";
import type { Hive } from "./open.ts";
import { statement } from "../sqlite/statements.ts";

/** A change's status. */
export type ChangeStatus = "pending" | "applied" | "skipped" | "blocked";

/** A change of `harness.yaml`. */
export interface YamlChange {
  path: string;
  op: "set" | "remove";
  value?: unknown;
  status: ChangeStatus;
  /** Why it is blocked or skipped. */
  reason?: string;
  /** Skipped at draft because it would change nothing. */
  noop?: boolean;
  /**
   * The value at the path when the proposal was drafted (null: the path was not set), so a person
   * sees old → new. Absent for a blocked change (a frozen field's value is not copied into the
   * record) and in proposals drafted before it was recorded.
   */
  old?: unknown;
}

/** A change of a file of the harness. */
export interface CodeChange {
  /** `c1`, `c2`, … within the proposal. */
  id: string;
  /** Path relative to the harness folder. */
  path: string;
  /** Unified diff against the file as it was when the proposal was drafted. */
  diff: string;
  status: ChangeStatus;
  reason?: string;
  /** Skipped at draft because the file already has this content. */
  noop?: boolean;
  /** The new content. */
  content: string;
  /** SHA-256 of the file when drafted (null: it did not exist); a different file at apply is a conflict. */
  base_sha256: string | null;
}

/** A proposal record (docs/http-contract.md, The proposal record). */
export interface Proposal {
  id: string;
  harness_id: string;
  status: ProposalStatus;
  trigger: "cli" | "http" | "auto" | "workbench";
  created_at: string;
  updated_at: string;
  rationale: string;
  objective: string | null;
  evidence: {
    run_ids: string[];
    failure_signatures: { signature: string; count: number; run_ids: string[] }[];
    runs: {
      total: number;
      by_status: Record<string, number>;
      avg_cost_usd: number | null;
      avg_turns: number | null;
    };
    trace_excerpts?: {
      run_id: string;
      events: { seq: number; type: string; payload: unknown }[];
    }[];
  };
  yaml_changes: YamlChange[];
  code_changes: CodeChange[];
  /** The spec version the proposal was drafted against. */
  spec_version: string;
  evolver: { provider: string; model: string; cost_usd: number };
  decided_at: string | null;
  reason: string | null;
}

/**
 * Stores a new proposal.
 *
 * @param db The hive.
 * @param p The proposal.
 * @param dir The harness folder it belongs to.
 */
export function insertProposal(db: Hive, p: Proposal, dir: string): void {
  statement(
    db,
    `INSERT INTO proposals (id, harness_id, harness_dir, status, trigger, created_at, updated_at,
       decided_at, reason, record)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    p.id,
    p.harness_id,
    dir,
    p.status,
    p.trigger,
    p.created_at,
    p.updated_at,
    p.decided_at,
    p.reason,
    JSON.stringify(p),
  );
}

/**
 * Saves a changed proposal.
 *
 * @param db The hive.
 * @param p The proposal.
 */
export function saveProposal(db: Hive, p: Proposal): void {
  statement(
    db,
    "UPDATE proposals SET status = ?, updated_at = ?, decided_at = ?, reason = ?, record = ? WHERE id = ? AND harness_id = ?",
  ).run(p.status, p.updated_at, p.decided_at, p.reason, JSON.stringify(p), p.id, p.harness_id);
}

/**
 * One proposal of a harness, or `not_found` (also for another harness's id, or a copied folder's).
 *
 * @param db The hive.
 * @param harness The harness that asks (id and folder).
 * @param id The proposal id.
 * @returns The proposal.
 */
export function getProposal(db: Hive, harness: HarnessRef, id: string): Proposal {
  const row = statement(
    db,
    "SELECT record FROM proposals WHERE id = ? AND harness_id = ? AND harness_dir = ?",
  ).get(id, harness.id, harness.dir) as { record: string } | undefined;
  if (!row) throw notFound(`Unknown proposal ${JSON.stringify(id)}`, { id });
  return JSON.parse(row.record);
}

/**
 * The proposals of a harness, newest first.
 *
 * @param db The hive.
 * @param harness The harness (id and folder).
 * @param status Only this status.
 * @param limit At most this many.
 * @returns The proposals.
 */
export function listProposals(
  db: Hive,
  harness: HarnessRef,
  status?: string,
  limit = 100,
): Proposal[] {
  if (status !== undefined && !(PROPOSAL_STATUSES as readonly string[]).includes(status)) {
    throw badInput(
      `Unknown status ${JSON.stringify(status)}: expected one of ${PROPOSAL_STATUSES.join(", ")}`,
    );
  }
  const rows = (status
    ? statement(
      db,
      "SELECT record FROM proposals WHERE harness_id = ? AND harness_dir = ? AND status = ? ORDER BY id DESC LIMIT ?",
    ).all(harness.id, harness.dir, status, limit)
    : statement(
      db,
      "SELECT record FROM proposals WHERE harness_id = ? AND harness_dir = ? ORDER BY id DESC LIMIT ?",
    ).all(harness.id, harness.dir, limit)) as { record: string }[];
  return rows.map((r) => JSON.parse(r.record));
}

/**
 * Marks a proposal as applied for the first time (it counts in the harness's evolved counter).
 *
 * @param db The hive.
 * @param id The proposal id.
 */
export function markProposalApplied(db: Hive, id: string): void {
  statement(db, "UPDATE proposals SET applied = 1 WHERE id = ?").run(id);
  appliedInProcess++;
}

let appliedInProcess = 0;

/**
 * How many proposals this process has marked applied: a snapshot that holds an evolved count is
 * current while this number has not moved (other processes are caught by the snapshot's age).
 *
 * @returns The count.
 */
export function proposalsAppliedInProcess(): number {
  return appliedInProcess;
}

/**
 * How many proposals of a harness were applied (the `evolved` counter of `/health`).
 *
 * @param db The hive.
 * @param harness The harness (id and folder).
 * @returns The count.
 */
export function evolvedCount(db: Hive, harness: HarnessRef): number {
  const row = statement(
    db,
    "SELECT count(*) AS n FROM proposals WHERE harness_id = ? AND harness_dir = ? AND applied = 1",
  ).get(harness.id, harness.dir) as { n: number };
  return row.n;
}

/**
 * When the harness's newest proposal was made (auto-propose counts failures after it).
 *
 * @param db The hive.
 * @param harness The harness (id and folder).
 * @returns An ISO time, or null.
 */
export function lastProposalAt(db: Hive, harness: HarnessRef): string | null {
  const row = statement(
    db,
    "SELECT max(created_at) AS at FROM proposals WHERE harness_id = ? AND harness_dir = ?",
  ).get(harness.id, harness.dir) as { at: string | null };
  return row.at;
}

/**
 * Takes an open proposal for one decision: one conditional update (`status` queued or
 * partially_applied → `deciding`), so of any number of processes racing to apply or reject it,
 * exactly one gets it (SQLite's write lock, PostgreSQL's row lock); the others are told it is taken.
 * {@link saveProposal} ends the decision with the new status; {@link releaseProposal} gives it back
 * when the decision failed.
 *
 * @param db The hive.
 * @param harness The harness (id and folder).
 * @param id The proposal id.
 * @returns True when this caller has it.
 */
export function claimProposal(db: Hive, harness: HarnessRef, id: string): boolean {
  return Number(
    statement(
      db,
      `UPDATE proposals SET status = 'deciding'
       WHERE id = ? AND harness_id = ? AND harness_dir = ?
         AND status IN ('queued', 'partially_applied')`,
    ).run(id, harness.id, harness.dir).changes,
  ) === 1;
}

/**
 * Gives back a proposal taken by {@link claimProposal} whose decision failed: its status is the
 * record's again.
 *
 * @param db The hive.
 * @param harness The harness (id and folder).
 * @param id The proposal id.
 */
export function releaseProposal(db: Hive, harness: HarnessRef, id: string): void {
  const row = statement(
    db,
    "SELECT record FROM proposals WHERE id = ? AND harness_id = ? AND harness_dir = ?",
  ).get(id, harness.id, harness.dir) as { record: string } | undefined;
  if (!row) return;
  statement(
    db,
    `UPDATE proposals SET status = ? WHERE id = ? AND harness_id = ? AND harness_dir = ?
       AND status = 'deciding'`,
  ).run((JSON.parse(row.record) as Proposal).status, id, harness.id, harness.dir);
}
