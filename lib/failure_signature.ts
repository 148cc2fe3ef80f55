/**
 * Failure signatures: a stable key per failed run (status plus a normalised reason) so failures of one
 * kind group together across runs, e.g. `verify_failed:regex:order-id`, `error:tool:file_read:not_found`,
 * `error:provider:http_429`, `max_turns`.
 *
 * @module
 */

import { runOutcome, type RunStatus } from "./run_types.ts";

/**
 * Normalises one part of a signature: lowercase, ids and long numbers replaced, only `[a-z0-9_.-]`.
 *
 * @param part A reason part.
 * @returns The normalised part.
 */
export function normalizeReasonPart(part: string): string {
  return part
    .toLowerCase()
    .replace(/run_[0-9a-z]{26}/g, "run")
    .replace(/\b[0-9a-f]{16,}\b/g, "hex")
    .replace(/\d{4,}/g, "n")
    .replace(/[^a-z0-9_.-]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 60) || "unknown";
}

/**
 * The failure signature of a run.
 *
 * @example
 * ```ts
 * failureSignature("error", ["provider", "http_429"]); // "error:provider:http_429"
 * failureSignature("success", []); // null
 * ```
 * @param status The run status.
 * @param reason Reason parts, most general first.
 * @returns The signature, or null for a success.
 */
export function failureSignature(status: RunStatus, reason: readonly string[]): string | null {
  if (status === "success") return null;
  if (status === "max_turns") return "max_turns";
  return [status, ...reason.map(normalizeReasonPart)].join(":");
}

/**
 * How the runs of one failure signature ended, read back from it (its first part is the status,
 * the rest the normalised reason): `stopped` for `error:stopped`, else the status.
 *
 * @example
 * ```ts
 * signatureOutcome("error:stopped"); // "stopped"
 * signatureOutcome("verify_failed:regex:order-id"); // "verify_failed"
 * ```
 * @param signature A failure signature.
 * @returns The outcome (see `runOutcome`).
 */
export function signatureOutcome(signature: string): string {
  const [status = "", ...reason] = signature.split(":");
  return runOutcome(status, reason.join(":"));
}

/**
 * Signatures of runs that ended for a reason outside the harness: a person stopped it, or the process
 * running it went away (while it worked, or while it waited for a person). They are recorded like
 * any ending, but they are no evidence that the harness needs changing.
 */
export const NOT_HARNESS_FAILURES: readonly string[] = [
  "error:stopped",
  "error:interrupted",
  "error:interrupted_awaiting_approval",
];

/**
 * Whether a failure signature says something about the harness (what the evolver learns from).
 *
 * @example
 * ```ts
 * isHarnessFailure("verify_failed:regex:order-id"); // true
 * isHarnessFailure("error:stopped"); // false: a person stopped it
 * isHarnessFailure(null); // false: a success
 * ```
 * @param signature A run's failure signature, or null.
 * @returns True for a failure of the harness.
 */
export function isHarnessFailure(signature: string | null): boolean {
  return signature !== null && !NOT_HARNESS_FAILURES.includes(signature);
}
