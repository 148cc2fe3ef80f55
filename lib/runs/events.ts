/**
 * The frames of any run by id, for resuming a stream: a live run of this process streams from its
 * handle; otherwise the journal is read (and followed while the hive says the run is still going in
 * another process): its file, or with a PostgreSQL hive the hive's copy of its lines, so a run in
 * progress on another host is followed too. Events up to `afterSeq` are skipped (`Last-Event-ID`).
 *
 * @module
 */

import type { HarnessRef } from "../hive/harnesses.ts";
import { type Hive, hiveStore } from "../hive/open.ts";
import { journalLinesAfter } from "../hive/journal_lines.ts";
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
  const readMore = hiveStore(db) === "postgres"
    ? hiveLinesReader(db, runId)
    : fileLinesReader(row.trace_path);
  let seen = afterSeq;
  let finished: RunResult | undefined;
  let ended = false;
  while (true) {
    const text = await readMore();
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
    // Its end recorded: the lines it wrote before are all there, read once more before answering.
    if (!ended && (!now || now.status !== "running")) {
      ended = true;
      continue;
    }
    if (ended) {
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

/** Reads the whole lines a journal file has gained since the last read ("" when it has none). */
function fileLinesReader(path: string): () => Promise<string> {
  let offset = 0;
  return async () => {
    let file: Deno.FsFile;
    try {
      file = await Deno.open(path, { read: true });
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return "";
      throw err;
    }
    try {
      await file.seek(offset, Deno.SeekMode.Start);
      const chunks: Uint8Array[] = [];
      const buf = new Uint8Array(64 * 1024);
      let n: number | null;
      while ((n = await file.read(buf)) !== null) chunks.push(buf.slice(0, n));
      const bytes = new Uint8Array(chunks.reduce((a, c) => a + c.length, 0));
      let at = 0;
      for (const c of chunks) {
        bytes.set(c, at);
        at += c.length;
      }
      const complete = bytes.lastIndexOf(10) + 1; // only whole lines
      offset += complete;
      return new TextDecoder().decode(bytes.subarray(0, complete));
    } finally {
      file.close();
    }
  };
}

/**
 * Reads the lines a PostgreSQL hive's copy of a journal has gained since the last read: a run in
 * progress on another host is followed from there (its file is on that host).
 */
function hiveLinesReader(db: Hive, runId: string): () => Promise<string> {
  let last = 0;
  return () => {
    const lines = journalLinesAfter(db, runId, last);
    if (lines.length) last = lines.at(-1)!.seq;
    return Promise.resolve(lines.map((l) => `${l.line}\n`).join(""));
  };
}
