/**
 * The end of every run: what stopped it becomes exactly one of the five statuses, with a reason and a
 * failure signature (`classify`); the result is assembled, the `run_end` hooks see it, `run_finished`
 * is journalled, and what the run opened (its time limit, sandboxes, MCP servers) is released. The
 * journal's flush starts here; whoever reports the run waits for it (`launch_run.ts`).
 *
 * @module
 */

import { ProviderError } from "../models/types.ts";
import { isHiveUnavailable } from "../errors.ts";
import { type RunResult, type RunStatus, STOPPED_REASON } from "../run_types.ts";
import { McpServerError } from "../tools/mcp.ts";
import { failureSignature } from "../failure_signature.ts";
import { type RunSession, RunStop } from "./run_session.ts";

/** How a run ended: its status, the parts of its reason, and a message for a person. */
export interface Outcome {
  status: RunStatus;
  reason: string[];
  message: string;
}

/** The reason of a run that lost the hive's database while it ran. */
export const HIVE_UNAVAILABLE = "hive_unavailable";

/** A run that answered (and passed its validators). */
export const ANSWERED: Outcome = { status: "success", reason: [], message: "" };

/**
 * What an error that ended a run means: a stop, a time-out, a guardrail, a validator, a provider or
 * an MCP server failing — and anything else is logged and reported as `internal`, without details.
 *
 * @example
 * ```ts
 * import type { RunSession } from "./run_session.ts";
 *
 * declare const session: RunSession;
 * classify(session, new Error("boom")).reason; // ["internal"] (and the error is logged on stderr)
 * ```
 * @param session The run.
 * @param err What ended it.
 * @returns The outcome.
 */
export function classify(session: RunSession, err: unknown): Outcome {
  if (err instanceof RunStop) {
    return { status: err.status, reason: err.reason, message: err.message };
  }
  if (isHiveUnavailable(err)) {
    return { status: "error", reason: [HIVE_UNAVAILABLE], message: (err as Error).message };
  }
  if (err instanceof McpServerError) {
    return { status: "error", reason: ["mcp", err.server], message: err.message };
  }
  if (session.run.signal.aborted && !session.timeout.aborted) {
    return { status: "error", reason: [STOPPED_REASON], message: "The run was stopped" };
  }
  if (session.timeout.aborted) {
    return {
      status: "error",
      reason: ["timeout"],
      message: `The run did not finish within ${session.limits.timeout_s} s (limits.timeout_s)`,
    };
  }
  if (err instanceof ProviderError) {
    return { status: "error", reason: ["provider", err.code], message: err.message };
  }
  console.error("internal error in a run:", err);
  return {
    status: "error",
    reason: ["internal"],
    message: "The run failed unexpectedly; the details were logged on stderr",
  };
}

/** The run's result, as every face reports it. */
function resultOf(session: RunSession, { status, reason, message }: Outcome): RunResult {
  const { run, spec, loaded } = session;
  const ended = new Date();
  return {
    run_id: run.run_id,
    harness_id: spec.id,
    status,
    output: session.output,
    cost_usd: Math.round(session.cost * 1e9) / 1e9,
    turns: session.turns,
    started_at: run.started.toISOString(),
    ended_at: ended.toISOString(),
    duration_ms: ended.getTime() - run.started.getTime(),
    spec_version: loaded.version,
    ...(status === "success" ? {} : { error: { reason: reason.join(":") || status, message } }),
    failure_signature: failureSignature(status, reason),
    parent_run_id: run.prepared.options.parentRunId ?? null,
    ...(run.prepared.options.threadId ? { thread_id: run.prepared.options.threadId } : {}),
    ...(session.delegations.length
      ? {
        delegations: session.delegations,
        delegated_cost_usd: Math.round(session.delegatedCost * 1e9) / 1e9,
      }
      : {}),
  };
}

/**
 * Ends a run with its outcome: `run_finished` (after the `run_end` hooks), and everything it opened
 * released. A run that failed before its start was journalled still journals `run_started` first.
 *
 * @example
 * ```ts
 * import type { RunSession } from "./run_session.ts";
 *
 * declare const session: RunSession;
 * (await endRun(session, ANSWERED)).status; // "success"
 * ```
 * @param session The run.
 * @param outcome How it ended.
 * @returns Its result.
 */
export async function endRun(session: RunSession, outcome: Outcome): Promise<RunResult> {
  const { run, spec, loaded } = session;
  if (outcome.status === "guardrail_halt") session.output = "";
  run.controls.close();
  const result = resultOf(session, outcome);
  try {
    if (run.journal.count() === 0) {
      session.emit("run_started", {
        run_id: run.run_id,
        harness_id: spec.id,
        spec_version: loaded.version,
        input: run.prepared.inputText,
      });
    }
    await session.hooks("run_end", { ...result });
    session.emit("run_finished", { ...result });
  } finally {
    session.release();
    // The flush to disk starts now and runs alongside the end of the run; whoever reports the run as
    // finished waits for it (`launchRun`), so no answer goes out before the journal is durable.
    run.journal.close().catch(() => {});
    await session.sandboxes.close();
    await session.equipment.mcp?.close();
  }
  return result;
}
