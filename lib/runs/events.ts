/**
 * The frames of any run by id, for resuming a stream: a live run of this process streams from its
 * handle; otherwise the journal is read (and followed while the hive says the run is still going in
 * another process). Events up to `afterSeq` are skipped (`Last-Event-ID`).
 *
 * @module
 */

import type { HarnessRef } from "../hive/harnesses.ts";
import type { Hive } from "../hive/open.ts";
import { getRun } from "../hive/runs.ts";
import type { JournalEvent } from "../journal/event.ts";
import { findRun } from "../journal/trace.ts";
import { parseJournal } from "../journal/verify.ts";
import { activeRun } from "../runner/active_runs.ts";
import { type RunFrame, runFrames } from "./frames.ts";
import type { RunResult } from "../run_types.ts";

const POLL_MS = 200;

/**
 * Frames of a run after `afterSeq`, ending with `run_result`. Bound to a harness (404 otherwise).
 *
 * @param db The hive.
 * @param harness The harness that asks (id and folder).
 * @param runId The run id.
 * @param afterSeq The last seq the client has.
 * @param signal Ends the frames (the client went away): a journal is no longer read for it.
 * @returns The frames.
 */
export async function* runEventFrames(
  db: Hive,
  harness: HarnessRef,
  runId: string,
  afterSeq = 0,
  signal?: AbortSignal,
): AsyncGenerator<RunFrame> {
  const row = findRun(db, harness, runId);
  const live = activeRun(runId);
  if (live) {
    yield* runFrames(live, afterSeq);
    return;
  }
  yield { frame: "run_accepted", run_id: row.run_id, harness_id: row.harness_id };
  let offset = 0;
  let seen = afterSeq;
  let finished: RunResult | undefined;
  while (true) {
    let text = "";
    try {
      const file = await Deno.open(row.trace_path, { read: true });
      try {
        await file.seek(offset, Deno.SeekMode.Start);
        const chunks: Uint8Array[] = [];
        const buf = new Uint8Array(64 * 1024);
        let n: number | null;
        while ((n = await file.read(buf)) !== null) chunks.push(buf.slice(0, n));
        const total = chunks.reduce((a, c) => a + c.length, 0);
        const bytes = new Uint8Array(total);
        let at = 0;
        for (const c of chunks) {
          bytes.set(c, at);
          at += c.length;
        }
        const complete = bytes.lastIndexOf(10) + 1; // only whole lines
        text = new TextDecoder().decode(bytes.subarray(0, complete));
        offset += complete;
      } finally {
        file.close();
      }
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    }
    for (const e of parseJournal(text) as JournalEvent[]) {
      if (e.type === "run_finished") finished = e.payload as unknown as RunResult;
      if (e.seq <= seen) continue;
      seen = e.seq;
      yield {
        frame: "trace",
        seq: e.seq,
        ts: e.ts,
        type: e.type,
        payload: e.payload,
        hash: e.hash,
      };
    }
    if (finished) break;
    const now = getRun(db, harness, runId);
    if (!now || now.status !== "running") {
      // Ended without a run_finished line (interrupted): answer from the hive row.
      const r = now ?? row;
      finished = {
        run_id: r.run_id,
        harness_id: r.harness_id,
        status: r.status === "running" ? "error" : r.status,
        output: r.output_excerpt,
        cost_usd: r.cost_usd,
        turns: r.turns,
        started_at: r.started_at,
        ended_at: r.ended_at ?? new Date().toISOString(),
        duration_ms: r.duration_ms ?? 0,
        spec_version: r.spec_version,
        failure_signature: r.failure_signature,
        ...(r.error ? { error: { reason: r.error.split(":")[0]!, message: r.error } } : {}),
      };
      break;
    }
    if (signal?.aborted) return;
    await new Promise((res) => setTimeout(res, POLL_MS));
  }
  yield { frame: "run_result", ...finished };
}
