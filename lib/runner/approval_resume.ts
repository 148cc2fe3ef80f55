/**
 * A run that stopped while it waited for a person, resumed once the person approved: its journal is
 * read up to the request (the chain verified), the new run opens with `run_resumed` and replays that
 * prefix without executing anything, then runs the approved call and the calls of that turn still
 * waiting, and goes on.
 *
 * @module
 */

import { FrameworkError } from "../errors.ts";
import type { JournalEvent } from "../journal/event.ts";
import { foldTurn } from "../journal/fold.ts";
import { parseJournal, verifyJournal } from "../journal/verify.ts";
import type { Message, ToolCall } from "../models/types.ts";
import type { ApprovalDecision, ApprovalRequest } from "./approval_gate.ts";

/** Where a resumed run takes up its parent, and the decision it carries on with. */
export interface ApprovalResume {
  parent_run_id: string;
  approval_id: string;
  /** The seq of the parent's `approval_requested` event: the prefix ends there. */
  at: number;
  parent_head: string;
  /** The parent's events up to `at`, replayed. */
  events: JournalEvent[];
  /** What the parent's model was sent, and what its next call would add. */
  messages: Message[];
  pending: Message[];
  turn: number;
  /** The parent's input. */
  input: string;
  /** The call the person decided on, as they were shown it. */
  request: ApprovalRequest;
  decision: ApprovalDecision;
  /** The turn's other calls still waiting for their own decisions. */
  remaining: ToolCall[];
}

/**
 * Reads where a run stopped while it waited for a decision.
 *
 * @example
 * ```ts
 * const bytes = await Deno.readFile("/h/.framework/traces/run_01J9Z3K8Q4N6V2W7X5Y0A1B2C3.jsonl");
 * const resume = resumeFromRequest(bytes, "run_01J9Z3K8Q4N6V2W7X5Y0A1B2C3", "apr_01…", {
 *   decision: "approved",
 *   by: "k_1",
 * });
 * resume.request.tool; // the call that runs first
 * ```
 * @param bytes The stopped run's journal.
 * @param runId The stopped run.
 * @param approvalId The request that was decided.
 * @param decision The decision.
 * @returns The resume.
 * @throws `conflict` when the journal is broken before the request or does not hold it.
 */
export function resumeFromRequest(
  bytes: Uint8Array,
  runId: string,
  approvalId: string,
  decision: ApprovalDecision,
): ApprovalResume {
  const events = parseJournal(bytes);
  const requested = events.find((e) =>
    e.type === "approval_requested" && e.payload.approval_id === approvalId
  );
  if (!requested) {
    throw new FrameworkError(
      "conflict",
      `The journal of run ${runId} does not hold the request ${approvalId}: it cannot be resumed`,
      { run_id: runId },
    );
  }
  const integrity = verifyJournal(bytes);
  if (integrity.broken_at !== null && integrity.broken_at <= requested.seq) {
    throw new FrameworkError(
      "conflict",
      `The journal of run ${runId} is broken at seq ${integrity.broken_at}, before the request: the prefix cannot be trusted, so it is not resumed`,
      { run_id: runId, broken_at: integrity.broken_at },
    );
  }
  const prefix = events.filter((e) => e.seq <= requested.seq);
  const folded = foldTurn(events, requested.seq);
  const p = requested.payload as unknown as ApprovalRequest & { approval_id: string };
  const request: ApprovalRequest = {
    call_id: p.call_id,
    tool: p.tool,
    arguments: p.arguments,
    arguments_hash: p.arguments_hash,
    turn: p.turn,
  };
  const started = prefix.find((e) => e.type === "run_started");
  return {
    parent_run_id: runId,
    approval_id: approvalId,
    at: requested.seq,
    parent_head: requested.hash,
    events: prefix,
    messages: folded.messages,
    pending: folded.pending,
    turn: folded.turn,
    input: typeof started?.payload.input === "string" ? started.payload.input : "",
    request,
    decision,
    remaining: folded.calls.filter((c) => c.id !== request.call_id && !folded.answered.has(c.id)),
  };
}
