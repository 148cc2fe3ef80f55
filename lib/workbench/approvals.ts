/**
 * Tool approvals as the workbench shows them: the requests of every harness it offers (the rail's
 * badge counts the pending ones), and who decides from its page — the person at the workbench, who
 * may decide the runs they started themselves (the local face is like a `*` key; the control plane's
 * rule that a run's own key may not decide is for keys).
 *
 * @module
 */

import { type ApprovalRecord, listApprovals } from "../hive/approvals.ts";
import type { Hive } from "../hive/open.ts";
import type { Decider } from "../runs/approvals.ts";
import { offeredHarnesses } from "./catalog.ts";

/** The person at the workbench, as a decision records them (`decided_by: "workbench"`). */
export const WORKBENCH_DECIDER: Decider = { by: "workbench", mayDecideOwn: true };

/** At most this many requests are listed across the workbench's harnesses. */
export const MAX_LISTED_APPROVALS = 200;

/** The requests of every harness the workbench offers. */
export interface WorkbenchApprovals {
  /** Newest first, at most {@link MAX_LISTED_APPROVALS}. */
  approvals: ApprovalRecord[];
  /** How many there are (more than listed when the list is cut). */
  count: number;
}

/**
 * The requests of every harness the workbench offers, newest first: the pending ones (what the
 * rail's badge counts and links), those decided, or all.
 *
 * @example
 * ```ts
 * import { openHive } from "../hive/open.ts";
 *
 * const { approvals, count } = workbenchApprovals(openHive(), "pending");
 * approvals[0]?.run_id; // a run waiting for a person
 * ```
 * @param db The hive.
 * @param which `pending`, `decided` or `all`.
 * @returns The requests, and how many there are.
 */
export function workbenchApprovals(
  db: Hive,
  which: "pending" | "decided" | "all",
): WorkbenchApprovals {
  const all = offeredHarnesses(db)
    .flatMap((h) => listApprovals(db, h, which, MAX_LISTED_APPROVALS))
    .sort((a, b) => (a.approval_id < b.approval_id ? 1 : a.approval_id > b.approval_id ? -1 : 0));
  return { approvals: all.slice(0, MAX_LISTED_APPROVALS), count: all.length };
}
