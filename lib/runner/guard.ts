/**
 * The guardrails at one stage of a run (the input, a model's answer, a tool call about to run): the
 * first that trips is journalled as `guardrail` and halts the run (`guardrail_halt`).
 *
 * @module
 */

import { firstTrip, type GuardState } from "./guardrails.ts";
import { type RunSession, RunStop } from "./run_session.ts";

/** What a stage tells the guardrails; the run's own figures are added. */
export type GuardCheck = Omit<GuardState, "input" | "cost_usd" | "tool_calls" | "turn"> & {
  /** Another input than the run's (a fork's replaced user message). */
  input?: string;
};

/**
 * Checks the run's guardrails at a stage.
 *
 * @example
 * ```ts
 * import type { RunSession } from "./run_session.ts";
 *
 * declare const session: RunSession;
 * await guard(session, { stage: "model_response", text: "…" }); // throws RunStop when one trips
 * ```
 * @param session The run.
 * @param check The stage and what it sees.
 * @throws `RunStop` (`guardrail_halt`, the guardrail's name as the reason) when one trips.
 */
export async function guard(session: RunSession, check: GuardCheck): Promise<void> {
  const trip = await firstTrip(session.equipment.guardrails, {
    input: session.run.prepared.inputText,
    ...check,
    cost_usd: session.cost,
    tool_calls: session.toolCalls,
    turn: session.turns,
  });
  if (!trip) return;
  const { guardrail, reason } = trip;
  session.emit("guardrail", {
    name: guardrail.name,
    kind: guardrail.kind,
    stage: check.stage,
    turn: session.turns,
    reason,
  });
  throw new RunStop("guardrail_halt", [guardrail.name], `${guardrail.name}: ${reason}`);
}
