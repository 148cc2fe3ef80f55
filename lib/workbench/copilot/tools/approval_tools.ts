/**
 * The copilot's view of tool approvals: it can list a harness's requests (pending and decided) and
 * say what waits, but it has no tool that decides one — a person approves or denies in the request's
 * card (Trace, or the chat), so a model's reasoning never lets a dangerous call through.
 *
 * @module
 */

import { type ApprovalRecord, listApprovals } from "../../../hive/approvals.ts";
import { approvalFilter } from "../../../requests.ts";
import type { Tool } from "../../../tools/tool.ts";
import { type CopilotContext, HARNESS, str, target, tool } from "./base.ts";

/** Argument strings longer than this are cut in the list (the card shows them whole). */
const MAX_ARGUMENT_CHARS = 1000;

/** A request as the copilot reads it: long argument strings cut. */
function listed(r: ApprovalRecord) {
  const args = Object.fromEntries(
    Object.entries(r.arguments).map(([k, v]) => [
      k,
      typeof v === "string" && v.length > MAX_ARGUMENT_CHARS
        ? `${v.slice(0, MAX_ARGUMENT_CHARS)}… [${v.length - MAX_ARGUMENT_CHARS} more characters]`
        : v,
    ]),
  );
  return {
    approval_id: r.approval_id,
    run_id: r.run_id,
    tool: r.tool,
    arguments: args,
    status: r.status,
    requested_at: r.requested_at,
    expires_at: r.expires_at,
    decided_at: r.decided_at,
    decided_by: r.decided_by,
    reason: r.reason,
    resumed_run_id: r.resumed_run_id,
  };
}

/**
 * The approval tools of one chat request: `list_approvals` alone (read-only).
 *
 * @param ctx The request's context.
 * @returns The tools.
 */
export function approvalTools(ctx: CopilotContext): Tool[] {
  return [
    tool(
      "list_approvals",
      "List a harness's tool-approval requests: calls of tools named in its approvals.tools that wait for a person (pending) or were approved, denied or expired (decided). Read-only: you cannot approve or deny; tell the person to decide in the request's card in Trace (or in the chat).",
      {
        ...HARNESS,
        status: {
          type: "string",
          enum: ["pending", "decided", "all"],
          description: "Which requests (default: all)",
        },
      },
      [],
      (args) => {
        const { id, dir } = target(ctx, args);
        const approvals = listApprovals(ctx.hive, { id, dir }, approvalFilter(str(args, "status")));
        return Promise.resolve({
          harness_id: id,
          approvals: approvals.map(listed),
          note: approvals.some((a) => a.status === "pending")
            ? "A person decides each pending request in its card (Trace of the run, or the chat)."
            : undefined,
        });
      },
    ),
  ];
}
