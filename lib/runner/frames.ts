/**
 * Stream frames of a run, shared by SSE (`POST /run?stream=true`) and NDJSON (`framework run
 * --stream`, `framework serve`): `run_accepted` first, one `trace` frame per journal event, and
 * `run_result` last (also when the run fails).
 *
 * @module
 */

import type { RunHandle } from "./start_run.ts";
import type { RunResult } from "./types.ts";

/** One frame. */
export type RunFrame =
  | { frame: "run_accepted"; run_id: string; harness_id: string }
  | {
    frame: "trace";
    run_id: string;
    seq: number;
    ts: string;
    type: string;
    payload: Record<string, unknown>;
    hash: string;
  }
  | ({ frame: "run_result" } & RunResult);

/**
 * The frames of a run, in order.
 *
 * @example
 * ```ts
 * for await (const f of runFrames(await startRun(dir, { input: "hi" }))) console.log(JSON.stringify(f));
 * ```
 * @param run The run handle.
 * @param afterSeq Skip trace frames up to this seq (for resuming).
 * @returns The frames.
 */
export async function* runFrames(run: RunHandle, afterSeq = 0): AsyncGenerator<RunFrame> {
  yield { frame: "run_accepted", run_id: run.run_id, harness_id: run.harness_id };
  for await (const e of run.events) {
    if (e.seq <= afterSeq) continue;
    yield {
      frame: "trace",
      run_id: run.run_id,
      seq: e.seq,
      ts: e.ts,
      type: e.type,
      payload: e.payload,
      hash: e.hash,
    };
  }
  yield { frame: "run_result", ...(await run.result) };
}
