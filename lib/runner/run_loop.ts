/**
 * The agent loop of one run, phase by phase: equip (tools, guardrails, validators, the journal's
 * start, the input through the guardrails), then turns — each after a turn boundary where the queued
 * controls are applied — until a final answer, which the validators check. Every outcome, failures
 * included, ends in exactly one status and one `run_finished`.
 *
 * @module
 */

import { type RunResult, STOPPED_REASON } from "../run_types.ts";
import { ANSWERED, classify, endRun, type Outcome } from "./end_run.ts";
import { equip } from "./equip.ts";
import { type LaunchedRun, openSession, type RunSession, RunStop } from "./run_session.ts";
import { applyDecision } from "./approval_call.ts";
import { runToolCalls, takeTurn } from "./turn.ts";
import { turnBoundary } from "./turn_boundary.ts";
import { verifyOutput } from "./verify_output.ts";

/** Turns until a final answer (steering that arrives while it is written keeps the run going). */
async function turnsUntilAnswered(session: RunSession): Promise<void> {
  const { limits, run } = session;
  while (true) {
    if (session.signal.aborted) throw session.signal.reason;
    await turnBoundary(session);
    if (session.turns >= limits.max_turns) {
      throw new RunStop(
        "max_turns",
        [],
        `The run used all ${limits.max_turns} turns without a final answer`,
      );
    }
    if (!await takeTurn(session)) continue;
    // A final answer. Steering that arrived meanwhile is delivered, and the run goes on.
    if (session.turns < limits.max_turns && run.controls.pending() && await turnBoundary(session)) {
      continue;
    }
    return;
  }
}

/** A run taken up after a person's approval first ends the turn it stopped in. */
async function finishResumedTurn(session: RunSession): Promise<void> {
  const resumed = session.run.prepared.options.resumed;
  if (!resumed) return;
  const answered = await applyDecision(
    session,
    resumed.approval_id,
    resumed.request,
    resumed.decision,
  );
  await session.hooks("after_tool_call", answered.event.payload);
  session.pending.push(answered.message);
  await runToolCalls(session, resumed.remaining);
}

/**
 * Runs a launched run to its end. Never rejects: every failure becomes a status.
 *
 * @example
 * ```ts
 * import type { LaunchedRun } from "./run_session.ts";
 *
 * declare const run: LaunchedRun; // as launch_run.ts makes it
 * const result = await runLoop(run);
 * result.status; // one of success, verify_failed, guardrail_halt, max_turns, error
 * ```
 * @param run The launched run.
 * @returns The run result.
 */
export async function runLoop(run: LaunchedRun): Promise<RunResult> {
  const session = openSession(run);
  let outcome: Outcome = ANSWERED;
  try {
    await equip(session);
    await finishResumedTurn(session);
    await turnsUntilAnswered(session);
    // A stop with `now` during the last boundary stops the run: the answer is not checked.
    if (session.signal.aborted) throw session.signal.reason;
    await verifyOutput(session);
  } catch (err) {
    outcome = classify(session, err);
    const by = run.controls.stoppedNow();
    if (by !== undefined && outcome.reason[0] === STOPPED_REASON && !(err instanceof RunStop)) {
      session.emit("run_stopped", { turn: session.turns, by, now: true });
    }
  }
  return await endRun(session, outcome);
}
