/**
 * A thread turn's rows written as a run writes them (its start, its end), for hive tests that play a
 * thread's runs without running them.
 *
 * @module
 */

import type { HarnessRef } from "../../lib/hive/harnesses.ts";
import { openHive } from "../../lib/hive/open.ts";
import { finishRun, insertRun } from "../../lib/hive/runs.ts";

/**
 * Records a turn's run as it starts: its row and its turn (the run then holds the thread).
 *
 * @param harness The thread's harness.
 * @param threadId The thread.
 * @param runId The run.
 * @param input Its input.
 */
export function recordTurnStart(
  harness: HarnessRef,
  threadId: string,
  runId: string,
  input: string,
): void {
  insertRun(openHive(), {
    run_id: runId,
    harness_id: harness.id,
    harness_dir: harness.dir,
    input,
    started_at: new Date().toISOString(),
    spec_version: "v",
    trace_path: `${harness.dir}/.framework/traces/${runId}.jsonl`,
    thread_id: threadId,
  });
}

/**
 * Records a turn's run as ended with `output` (an empty output is an error).
 *
 * @param harness The thread's harness.
 * @param threadId The thread.
 * @param runId The run.
 * @param output Its output.
 * @param cost Its cost.
 */
export function recordTurnEnd(
  harness: HarnessRef,
  threadId: string,
  runId: string,
  output: string,
  cost = 0,
): void {
  const at = new Date().toISOString();
  finishRun(openHive(), {
    run_id: runId,
    harness_id: harness.id,
    status: output ? "success" : "error",
    output,
    cost_usd: cost,
    turns: 1,
    started_at: at,
    ended_at: at,
    duration_ms: 1,
    spec_version: "v",
    failure_signature: output ? null : "error:provider",
    thread_id: threadId,
  }, { head_hash: "0".repeat(64), events: 3 });
}
