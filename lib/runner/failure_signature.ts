/**
 * Failure signatures: a stable key per failed run (status plus a normalised reason) so failures of one
 * kind group together across runs, e.g. `verify_failed:regex:order-id`, `error:tool:file_read:not_found`,
 * `error:provider:http_429`, `max_turns`.
 *
 * @module
 */

import type { RunStatus } from "../run_types.ts";

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
