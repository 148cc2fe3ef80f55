/**
 * A call that waits for a person: `approval_requested` (with the hash of its arguments) is
 * journalled, the run service keeps the request and lets the run's slot go while the person decides,
 * and `approval_decided` follows. Approved: the call runs with exactly the arguments the person was
 * shown. Denied or expired: the model reads the tool error `denied by a person: <reason>`, and the
 * run goes on.
 *
 * @module
 */

import type { JournalEvent } from "../journal/event.ts";
import type { Message, ToolCall } from "../models/types.ts";
import {
  type ApprovalDecision,
  type ApprovalGate,
  type ApprovalRequest,
  argumentsHash,
  deniedMessage,
} from "./approval_gate.ts";
import type { RunSession } from "./run_session.ts";
import { refuseToolCall, runToolCall } from "./tool_call.ts";

/**
 * Journals a decision and answers the call it was for: run with the recorded arguments, or refused.
 *
 * @example
 * ```ts
 * import type { ApprovalRequest } from "./approval_gate.ts";
 * import type { RunSession } from "./run_session.ts";
 *
 * declare const session: RunSession;
 * declare const request: ApprovalRequest;
 * await applyDecision(session, "apr_01…", request, { decision: "approved", by: "k_1" });
 * ```
 * @param session The run.
 * @param approvalId The request.
 * @param request What the person was shown.
 * @param d The decision.
 * @returns The message the model reads, and the `tool_result` event.
 */
export async function applyDecision(
  session: RunSession,
  approvalId: string,
  request: ApprovalRequest,
  d: ApprovalDecision,
): Promise<{ message: Message; event: JournalEvent }> {
  session.emit("approval_decided", {
    approval_id: approvalId,
    decision: d.decision,
    by: d.by,
    ...(d.reason !== undefined ? { reason: d.reason } : {}),
    arguments_hash: request.arguments_hash,
  });
  const call: ToolCall = { id: request.call_id, name: request.tool, arguments: request.arguments };
  if (d.decision === "approved") return await runToolCall(session, call);
  return refuseToolCall(session, call, d.decision, deniedMessage(d));
}

/**
 * Asks for a person's decision on a call, waits for it, and answers the call.
 *
 * @example
 * ```ts
 * import type { ApprovalGate } from "./approval_gate.ts";
 * import type { RunSession } from "./run_session.ts";
 *
 * declare const session: RunSession;
 * declare const gate: ApprovalGate;
 * const call = { id: "c1", name: "file_write", arguments: { path: "a.txt", content: "x" } };
 * (await callAfterDecision(session, gate, call)).message.content; // what the model reads next
 * ```
 * @param session The run.
 * @param gate The run service's approval gate.
 * @param call The call.
 * @returns The message the model reads, and the `tool_result` event.
 * @throws The run's signal's reason when the run is stopped while it waits.
 */
export async function callAfterDecision(
  session: RunSession,
  gate: ApprovalGate,
  call: ToolCall,
): Promise<{ message: Message; event: JournalEvent }> {
  const args = structuredClone(call.arguments ?? {});
  const request: ApprovalRequest = {
    call_id: call.id,
    tool: call.name,
    arguments: args,
    arguments_hash: argumentsHash(args),
    turn: session.turns,
  };
  const ticket = gate.open(request);
  session.emit("approval_requested", {
    approval_id: ticket.approval_id,
    call_id: request.call_id,
    tool: request.tool,
    arguments: request.arguments,
    arguments_hash: request.arguments_hash,
    turn: request.turn,
    expires_at: ticket.expires_at,
  });
  const decision = ticket.decided ?? await gate.wait(ticket, session.signal);
  return await applyDecision(session, ticket.approval_id, request, decision);
}
