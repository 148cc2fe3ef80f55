/**
 * The frames of a run, one shape for every stream: `run_accepted` first (with the pre-allocated run
 * id, and whether it waits for a slot), one `trace` frame per journal event (`{seq, ts, type,
 * payload, hash}`, docs/http-contract.md), and `run_result` last, also when the run fails. One
 * encoder turns them into server-sent events (the control plane, the workbench) and one into NDJSON
 * lines (`framework run --stream --json`, `framework serve`).
 *
 * @module
 */

import type { SseFrame } from "../http/sse.ts";
import type { RunResult } from "../run_types.ts";
import type { RunHandle } from "../runner/run_handle.ts";
import type { JournalEvent } from "../journal/event.ts";

/** One frame. */
export type RunFrame =
  | {
    frame: "run_accepted";
    run_id: string;
    harness_id: string;
    queued?: boolean;
    thread_id?: string;
  }
  | {
    frame: "trace";
    seq: number;
    ts: string;
    type: string;
    payload: Record<string, unknown>;
    hash: string;
  }
  | ({ frame: "run_result" } & RunResult);

/** A `trace` frame: one journal event as a run stream sends it (docs/http-contract.md, Run frames). */
export type TraceFrame = Extract<RunFrame, { frame: "trace" }>;

/**
 * The trace frame of a journal event: its contract fields, nothing else.
 *
 * @param e The event.
 * @returns The frame.
 */
export function traceFrame(e: JournalEvent): TraceFrame {
  return { frame: "trace", seq: e.seq, ts: e.ts, type: e.type, payload: e.payload, hash: e.hash };
}

/**
 * The trace frames and the result of a started run (after `run_accepted`).
 *
 * @param run The run handle.
 * @param afterSeq Skip trace frames up to this seq (for resuming).
 * @returns The frames.
 */
export async function* runTail(run: RunHandle, afterSeq = 0): AsyncGenerator<RunFrame> {
  for await (const e of run.events) {
    if (e.seq <= afterSeq) continue;
    yield traceFrame(e);
  }
  yield { frame: "run_result", ...(await run.result) };
}

/**
 * The frames of a run, in order.
 *
 * @example
 * ```ts
 * import { startRun } from "./service.ts";
 *
 * const run = await startRun("./harnesses/hello", { input: "Hi" });
 * for await (const f of runFrames(run)) console.log(ndjsonLine(f));
 * ```
 * @param run The run handle.
 * @param afterSeq Skip trace frames up to this seq (for resuming).
 * @returns The frames.
 */
export async function* runFrames(run: RunHandle, afterSeq = 0): AsyncGenerator<RunFrame> {
  yield { frame: "run_accepted", run_id: run.run_id, harness_id: run.harness_id };
  yield* runTail(run, afterSeq);
}

/**
 * A frame as a server-sent event: `event:` is the frame, `data:` the rest, `id:` the seq of a trace.
 *
 * @param frame The frame.
 * @returns The SSE frame.
 */
export function sseFrameOf(frame: RunFrame): SseFrame {
  const { frame: event, ...data } = frame;
  return frame.frame === "trace" ? { event, data, id: frame.seq } : { event, data };
}

/**
 * A frame as one NDJSON line (without its newline): `{"frame": "<frame>", …}`.
 *
 * @param frame The frame.
 * @returns The line.
 */
export function ndjsonLine(frame: RunFrame): string {
  return JSON.stringify(frame);
}

/**
 * Encodes frames as server-sent events.
 *
 * @param frames The frames.
 * @returns The SSE frames.
 */
export async function* sseFrames(frames: AsyncIterable<RunFrame>): AsyncGenerator<SseFrame> {
  for await (const f of frames) yield sseFrameOf(f);
}
