/**
 * A finished run's result as recorded: what a face that reads a run back after the fact answers with
 * (the OpenAI Responses object, an A2A task).
 *
 * @module
 */

import type { RunRow } from "../hive/runs.ts";
import type { RunResult } from "../run_types.ts";

/**
 * A finished run's result from its journal, or from its row and turn when `run_finished` is missing.
 *
 * @param events The run's journal events.
 * @param run Its row in the hive.
 * @param output Its thread turn's output, when it is one.
 * @returns The result.
 */
export function recordedResult(
  events: readonly { type: string; payload: Record<string, unknown> }[],
  run: RunRow,
  output: string | null,
): RunResult {
  const last = events.findLast((e) => e.type === "run_finished");
  if (last) return last.payload as unknown as RunResult;
  const status = run.status === "running" ? "error" : run.status;
  return {
    run_id: run.run_id,
    harness_id: run.harness_id,
    status,
    output: output ?? "",
    cost_usd: run.cost_usd,
    turns: run.turns,
    started_at: run.started_at,
    ended_at: run.ended_at ?? run.started_at,
    duration_ms: run.duration_ms ?? 0,
    spec_version: run.spec_version,
    failure_signature: run.failure_signature,
    ...(run.reason ? { error: { reason: run.reason, message: run.error ?? run.reason } } : {}),
  };
}
