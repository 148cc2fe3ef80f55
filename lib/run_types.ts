/**
 * Run statuses and the run result (docs/http-contract.md, The run result).
 *
 * @module
 */

/** The five statuses a finished run reports. */
export const RUN_STATUSES = [
  "success",
  "verify_failed",
  "guardrail_halt",
  "max_turns",
  "error",
] as const;

/** A finished run's status. */
export type RunStatus = typeof RUN_STATUSES[number];

/** The result of a run (the `/run` payload). */
export interface RunResult {
  run_id: string;
  harness_id: string;
  status: RunStatus;
  output: string;
  cost_usd: number;
  turns: number;
  started_at: string;
  ended_at: string;
  duration_ms: number;
  spec_version: string;
  /** Why a run that did not succeed ended: `{reason, message}`. */
  error?: { reason: string; message: string };
  /** Stable grouping key of a failed run, null for success. */
  failure_signature: string | null;
  parent_run_id?: string | null;
  /** The hand-offs of this run to peers (absent when there were none). */
  delegations?: Delegation[];
  /** What those hand-offs cost; included in `cost_usd`. */
  delegated_cost_usd?: number;
  /** The thread the run is a turn of (absent for a run of no thread). */
  thread_id?: string;
}

/** One hand-off of a run to a peer harness (docs/runs.md, Delegation). */
export interface Delegation {
  peer: string;
  harness_id: string;
  run_id: string;
  status: RunStatus;
  cost_usd: number;
  turns: number;
  /** A remote (A2A) peer's URL; `run_id` is then the remote task id. */
  url?: string;
}

/** The reason of a run a person (or a client) stopped: it ends `error`, reason `stopped`. */
export const STOPPED_REASON = "stopped";

/**
 * How a run's outcome reads wherever runs are listed: its status, except that a run someone stopped
 * (status `error`, reason `stopped`) reads `stopped` — it did not fail. The status itself stays
 * `error` everywhere it is stored or sent.
 *
 * @example
 * ```ts
 * runOutcome("error", "stopped"); // "stopped"
 * runOutcome("error", "provider:http_429"); // "error"
 * runOutcome("success"); // "success"
 * ```
 * @param status The run's status (or `running`).
 * @param reason Why it ended, when it did not succeed (the first part decides).
 * @returns The status, or `stopped`.
 */
export function runOutcome(status: string, reason?: string | null): string {
  return status === "error" && reason?.split(":")[0] === STOPPED_REASON ? STOPPED_REASON : status;
}

/**
 * Checks a status name.
 *
 * @param s A string.
 * @returns Whether it is a run status.
 */
export function isRunStatus(s: string): s is RunStatus {
  return (RUN_STATUSES as readonly string[]).includes(s);
}

/** A piece of a model reply's text as it is generated (a live view, not journalled). */
export interface TextDelta {
  /** The turn of the model call. */
  turn: number;
  text: string;
}
