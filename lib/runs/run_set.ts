/**
 * The events of several runs over one stream. A browser opens at most six HTTP/1.1 connections to a
 * host, so a page that held one stream per live run would stall every other request once six runs
 * were live; the workbench's pages follow every run they show over this one stream instead.
 *
 * Each run's frames are those of its own stream (`runEventFrames`) with its `run_id`, merged in the
 * order they come: `trace` frames, then the run's `run_result`, after which the run is dropped. The
 * stream ends when every run has ended. Every frame carries the stream's cursor: the last seq sent of
 * each run, in the order the runs were asked for, `-` once the run's result was sent (`12,5,-`). A
 * client that reconnects with the same runs and that cursor as `Last-Event-ID` misses nothing and
 * gets nothing twice.
 *
 * @module
 */

import { badInput, quote } from "../errors.ts";
import type { SseFrame } from "../http/sse.ts";
import type { RunResult } from "../run_types.ts";
import { isWholeNumberText } from "../whole_number.ts";
import type { RunFrame, TraceFrame } from "./frames.ts";

/** The most runs one stream follows. */
export const MAX_RUNS_PER_STREAM = 100;

/** Where a client stands in one run of the set. */
export interface RunCursor {
  run_id: string;
  /** The last seq it has (0: none). */
  after: number;
  /** Whether it has the run's result already (the run is not followed again). */
  ended: boolean;
}

/** A frame of the set: a run's trace frame or result, with the stream's cursor after it. */
export type RunSetFrame =
  & ((TraceFrame & { run_id: string }) | ({ frame: "run_result" } & RunResult))
  & { cursor: string };

const EXAMPLE = "?runs=run_01J…,run_01K…:12 (a run id, and optionally the last seq you have)";

/**
 * Reads which runs a client follows, and from where: `runs` is `<run id>[:<last seq>]`, comma
 * separated; a `Last-Event-ID` (the cursor of the last frame the client got) overrides the seqs.
 *
 * @example
 * ```ts
 * readRunSet("run_a,run_b:12", "3,-"); // run_a after 3; run_b ended
 * ```
 * @param runs The `runs` query parameter.
 * @param lastEventId The `Last-Event-ID` header (or `last_event_id` query parameter), if any.
 * @returns The cursors, in the order asked.
 * @throws `bad_input` naming what is wrong and what to send.
 */
export function readRunSet(
  runs: string | null | undefined,
  lastEventId: string | null | undefined,
): RunCursor[] {
  const items = (runs ?? "").split(",").map((s) => s.trim()).filter(Boolean);
  if (!items.length) throw badInput(`Name the runs to follow: ${EXAMPLE}`);
  if (items.length > MAX_RUNS_PER_STREAM) {
    throw badInput(
      `One stream follows at most ${MAX_RUNS_PER_STREAM} runs, got ${items.length}; ` +
        "follow the runs you show, or open a second stream",
    );
  }
  const seen = new Set<string>();
  const cursors = items.map((item): RunCursor => {
    const [id = "", seq, ...extra] = item.split(":");
    if (
      !/^[\w-]{1,64}$/.test(id) || extra.length || (seq !== undefined && !isWholeNumberText(seq))
    ) {
      throw badInput(`Not a run to follow: ${quote(item)}; send ${EXAMPLE}`);
    }
    if (seen.has(id)) throw badInput(`The run ${quote(id)} is named twice in runs`);
    seen.add(id);
    return { run_id: id, after: seq === undefined ? 0 : Number(seq), ended: false };
  });
  const last = lastEventId?.trim();
  if (!last) return cursors;
  const positions = last.split(",");
  if (
    positions.length !== cursors.length ||
    !positions.every((p) => p === "-" || isWholeNumberText(p))
  ) {
    throw badInput(
      `Last-Event-ID ${quote(last)} is not a cursor of these ${cursors.length} runs: ` +
        "reconnect with the same runs, or without Last-Event-ID",
    );
  }
  return cursors.map((c, i) =>
    positions[i] === "-" ? { ...c, ended: true } : { ...c, after: Number(positions[i]) }
  );
}

/** One run of the set: where the client stands, and the run's own frames from there. */
export interface RunSetSource {
  cursor: RunCursor;
  /** The run's frames after `cursor.after` (unused for an ended cursor). */
  frames: () => AsyncIterable<RunFrame>;
}

type Settled = { i: number; result?: IteratorResult<RunFrame>; error?: unknown };

/**
 * Merges the frames of several runs into one stream, each run's in its order, as they come. A run is
 * dropped after its `run_result`; the stream ends when every run has ended. Each run has at most one
 * frame asked for at a time, so a slow client holds nothing back but itself.
 *
 * @example
 * ```ts
 * import { runTail } from "./frames.ts";
 * import { startRun } from "./service.ts";
 *
 * const runs = await Promise.all(
 *   ["Hi", "Bonjour"].map((input) => startRun("./harnesses/hello", { input })),
 * );
 * const sources = readRunSet(runs.map((r) => r.run_id).join(","), null).map((cursor, i) => ({
 *   cursor,
 *   frames: () => runTail(runs[i]!, cursor.after),
 * }));
 * for await (const f of runSetFrames(sources)) console.log(f.frame, f.run_id, f.cursor);
 * ```
 * @param sources The runs, in the order the client asked for them.
 * @param signal Ends the stream at once (the client went away), whatever the runs are doing.
 * @returns The frames, each with the cursor after it.
 */
export async function* runSetFrames(
  sources: readonly RunSetSource[],
  signal?: AbortSignal,
): AsyncGenerator<RunSetFrame> {
  const positions: (number | "-")[] = sources.map((s) => s.cursor.ended ? "-" : s.cursor.after);
  const iterators = sources.map((s) => s.cursor.ended ? null : s.frames()[Symbol.asyncIterator]());
  const settled: Settled[] = [];
  let wake: (() => void) | undefined;
  const pull = (i: number) => {
    const done = (s: Settled) => {
      settled.push(s);
      wake?.();
    };
    iterators[i]!.next().then((result) => done({ i, result }), (error) => done({ i, error }));
  };
  const drop = (i: number) => {
    const it = iterators[i];
    iterators[i] = null;
    void it?.return?.()?.catch(() => {});
  };
  const onAbort = () => wake?.();
  signal?.addEventListener("abort", onAbort);
  iterators.forEach((it, i) => it && pull(i));
  try {
    while (iterators.some((it) => it)) {
      while (!settled.length) {
        if (signal?.aborted) return;
        await new Promise<void>((resolve) => wake = resolve);
      }
      wake = undefined;
      const { i, result, error } = settled.shift()!;
      if (!iterators[i]) continue;
      if (error !== undefined) throw error;
      if (!result || result.done) {
        iterators[i] = null;
        continue;
      }
      const frame = result.value;
      const run_id = sources[i]!.cursor.run_id;
      if (frame.frame === "trace") {
        positions[i] = frame.seq;
        yield { ...frame, run_id, cursor: positions.join(",") };
        pull(i);
      } else if (frame.frame === "run_result") {
        positions[i] = "-";
        drop(i);
        yield { ...frame, cursor: positions.join(",") };
      } else {
        pull(i); // run_accepted: the client named the run itself
      }
    }
  } finally {
    signal?.removeEventListener("abort", onAbort);
    iterators.forEach((_, i) => drop(i));
  }
}

/**
 * A frame of the set as a server-sent event: `event:` the frame, `data:` the rest, `id:` the cursor.
 *
 * @param frame The frame.
 * @returns The SSE frame.
 */
export function sseRunSetFrame(frame: RunSetFrame): SseFrame {
  const { frame: event, cursor, ...data } = frame;
  return { event, data, id: cursor };
}

/**
 * Encodes the frames of a set as server-sent events.
 *
 * @param frames The frames.
 * @returns The SSE frames.
 */
export async function* sseRunSetFrames(
  frames: AsyncIterable<RunSetFrame>,
): AsyncGenerator<SseFrame> {
  for await (const f of frames) yield sseRunSetFrame(f);
}
