/**
 * What the loop asks before a tool whose calls need a person's decision runs (`approvals.tools`): the
 * run service answers — it records the request, lets the run's slot go while it waits, and comes back
 * with the decision — so the loop knows nothing of stores, slots or HTTP. The loop journals
 * `approval_requested` and `approval_decided`, runs an approved call with exactly the arguments the
 * person was shown, and answers a denied or expired one to the model as a tool error.
 *
 * @module
 */

import { canonicalJson, sha256Hex } from "../hash.ts";

/** A call waiting for a decision, as the person is shown it. */
export interface ApprovalRequest {
  call_id: string;
  tool: string;
  arguments: Record<string, unknown>;
  /** Hex SHA-256 of the arguments' canonical JSON: a decision quotes it. */
  arguments_hash: string;
  turn: number;
}

/** A person's decision (or the clock's, or the service's). */
export interface ApprovalDecision {
  decision: "approved" | "denied" | "expired";
  /** Who decided: a key id, `cli`, `workbench`, or `framework` (expired, too many runs waiting). */
  by: string;
  reason?: string;
}

/** A recorded request: its id, when it expires, and a decision when one was made at once. */
export interface ApprovalTicket {
  approval_id: string;
  expires_at: string;
  /** Decided as it was asked (too many runs waiting already): the run does not wait. */
  decided?: ApprovalDecision;
}

/** The run service's answer to "may this call run?". */
export interface ApprovalGate {
  /** Whether a tool's calls wait for a decision. */
  needs(tool: string): boolean;
  /** Records a request; a ticket may come decided already. */
  open(request: ApprovalRequest): ApprovalTicket;
  /**
   * Waits for the decision without holding a run slot, then takes a slot again.
   *
   * @throws The run's signal's reason when it is stopped while it waits (the service decides what
   *   becomes of the request).
   */
  wait(ticket: ApprovalTicket, signal: AbortSignal): Promise<ApprovalDecision>;
}

/**
 * The hash a decision quotes: hex SHA-256 of the arguments' RFC 8785 canonical JSON, so key order and
 * spacing do not change it.
 *
 * @example
 * ```ts
 * argumentsHash({ path: "a.txt", content: "x" }) === argumentsHash({ content: "x", path: "a.txt" });
 * ```
 * @param args The call's arguments.
 * @returns 64 hex characters.
 */
export function argumentsHash(args: Record<string, unknown>): string {
  return sha256Hex(canonicalJson(args));
}

/**
 * What the model reads for a call a person did not approve.
 *
 * @example
 * ```ts
 * deniedMessage({ decision: "denied", by: "k_1", reason: "not that file" });
 * // "denied by a person: not that file"
 * ```
 * @param d The decision.
 * @returns The tool error's message.
 */
export function deniedMessage(d: ApprovalDecision): string {
  if (d.decision === "expired") {
    return `denied by a person: ${d.reason ?? "no one decided in time"}`;
  }
  return `denied by a person: ${d.reason ?? "no reason given"}`;
}
