/**
 * Evaluation results in the hive: one row per `framework eval` (a set run against one spec version
 * of a harness), with its whole result as JSON and the figures compared across versions.
 *
 * @module
 */

import type { HarnessRef } from "./harnesses.ts";
import type { Hive } from "./open.ts";
import { statement } from "../sqlite/statements.ts";

/** One check of a case. */
export interface EvalCheck {
  name: string;
  passed: boolean;
  message: string;
}

/** One case's outcome. */
export interface EvalCaseResult {
  case_id: string;
  run_id: string | null;
  status: string;
  passed: boolean;
  checks: EvalCheck[];
  cost_usd: number;
  turns: number;
  duration_ms: number;
  /** The run's failure signature (null when it succeeded or did not start). */
  failure_signature: string | null;
}

/** An evaluation (docs/evaluations.md, framework eval). */
export interface EvalResult {
  eval_id: string;
  harness_id: string;
  set: string;
  spec_version: string;
  started_at: string;
  ended_at: string;
  cases: EvalCaseResult[];
  pass_rate: number;
  cost_usd: number;
  p50_duration_ms: number | null;
  /** Measured on a temporary copy with another harness.yaml (a version or a proposal). */
  measured_on?: "copy";
}

/**
 * Stores an evaluation.
 *
 * @param db The hive.
 * @param harness The harness it measured.
 * @param result The result.
 */
export function insertEval(db: Hive, harness: HarnessRef, result: EvalResult): void {
  statement(
    db,
    `INSERT INTO evals (eval_id, harness_id, harness_dir, set_name, spec_version, started_at, ended_at,
       pass_rate, cost_usd, p50_duration_ms, result)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    result.eval_id,
    harness.id,
    harness.dir,
    result.set,
    result.spec_version,
    result.started_at,
    result.ended_at,
    result.pass_rate,
    result.cost_usd,
    result.p50_duration_ms,
    JSON.stringify(result),
  );
}

/**
 * The newest evaluation of a spec version on a set (any set when none is named).
 *
 * @param db The hive.
 * @param harness The harness.
 * @param version The spec version.
 * @param set The set, or undefined for the newest of any.
 * @returns The result, or undefined.
 */
export function latestEval(
  db: Hive,
  harness: HarnessRef,
  version: string,
  set?: string,
): EvalResult | undefined {
  const row = (set === undefined
    ? statement(
      db,
      `SELECT result FROM evals WHERE harness_id = ? AND harness_dir = ? AND spec_version = ?
       ORDER BY started_at DESC, eval_id DESC LIMIT 1`,
    ).get(harness.id, harness.dir, version)
    : statement(
      db,
      `SELECT result FROM evals WHERE harness_id = ? AND harness_dir = ? AND spec_version = ?
         AND set_name = ? ORDER BY started_at DESC, eval_id DESC LIMIT 1`,
    ).get(harness.id, harness.dir, version, set)) as { result: string } | undefined;
  return row ? JSON.parse(row.result) as EvalResult : undefined;
}

/**
 * The sets a spec version was evaluated on, newest first.
 *
 * @param db The hive.
 * @param harness The harness.
 * @param version The spec version.
 * @returns Set names.
 */
export function evaluatedSets(db: Hive, harness: HarnessRef, version: string): string[] {
  return (statement(
    db,
    `SELECT set_name, max(started_at) AS at FROM evals WHERE harness_id = ? AND harness_dir = ?
       AND spec_version = ? GROUP BY set_name ORDER BY at DESC`,
  ).all(harness.id, harness.dir, version) as { set_name: string }[]).map((r) => r.set_name);
}
