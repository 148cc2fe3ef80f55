/**
 * A thread turn's rows written as a run writes them (its start, its end), for hive tests that play a
 * thread's runs without running them.
 *
 * @module
 */

import type { HarnessRef } from "../../lib/hive/harnesses.ts";
import { openHive } from "../../lib/hive/open.ts";
import { finishRun, insertRun, type TurnCondition } from "../../lib/hive/runs.ts";

/**
 * Records a turn's run as it starts: its row and its turn (the run then holds the thread).
 *
 * @param harness The thread's harness.
 * @param threadId The thread.
 * @param runId The run.
 * @param input Its input.
 * @param condition What its thread must still be, from its start (lib/hive/threads.ts).
 */
export function recordTurnStart(
  harness: HarnessRef,
  threadId: string,
  runId: string,
  input: string,
  condition?: TurnCondition,
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
    ...(condition ? { thread_if: condition } : {}),
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

/**
 * A thread of two turns as a hive kept it before migration 18 (PostgreSQL 4), in a table of its own
 * (portable SQL, for both stores' migration tests), beside a run of no thread.
 */
export const THREAD_TURNS_BEFORE_18 = `
  INSERT INTO threads (thread_id, harness_id, harness_dir, owner, metadata, created_at, updated_at,
    turns)
    VALUES ('thr_a', 'bot', '/h/bot', 'cli', '{}', 't0', 't2', 2);
  INSERT INTO runs (run_id, harness_id, harness_dir, status, started_at, spec_version, trace_path,
    thread_id)
    VALUES ('run_1', 'bot', '/h/bot', 'success', 't1', 'v', '/h/bot/run_1.jsonl', 'thr_a'),
           ('run_2', 'bot', '/h/bot', 'error', 't2', 'v', '/h/bot/run_2.jsonl', 'thr_a'),
           ('run_x', 'bot', '/h/bot', 'success', 't3', 'v', '/h/bot/run_x.jsonl', NULL);
  INSERT INTO thread_turns (thread_id, seq, run_id, input, output)
    VALUES ('thr_a', 1, 'run_1', 'q1', 'a1'), ('thr_a', 2, 'run_2', 'q2', '');
`;
