/**
 * One stream of live runs per page. A browser opens at most six HTTP/1.1 connections to a host: a
 * page that held a stream per live run stalled every other request (and the seventh Run) once six
 * runs were live. Here every part of the page that shows a live run follows it through this one
 * object, which keeps ONE `GET /api/runs/events?runs=…` open for the runs followed now:
 *
 * - when the set changes (a run shown or no longer shown), the stream is opened again for the new set
 *   (changes within a few milliseconds are taken together), each run from the last event the page
 *   has, so nothing is lost or repeated;
 * - the server drops a run after its `run_result` and ends the stream with the last run, so no stream
 *   stays open for a run that has ended, and none at all while nothing live is shown;
 * - a stream cut short is opened again after a pause (1 s, growing to 10 s).
 *
 * @module
 */

import { ApiError, type Fetcher, readSse, type SseEvent } from "./api.ts";
import type { JournalEvent, RunResult } from "./types.ts";

/** What a follower of a run is told. */
export type LiveFrame =
  /** An event of the run's journal, in order, each once. */
  | { kind: "trace"; run_id: string; event: JournalEvent }
  /** The run has ended. */
  | { kind: "result"; run_id: string; result: RunResult }
  /** The run cannot be followed (the API refused it); its data should be read again. */
  | { kind: "gone"; run_id: string; error: ApiError };

/** The page's live runs. */
export interface RunStream {
  /**
   * Follows a run: `listener` gets its events after seq `after`, then its result.
   *
   * @returns The undo (stop following).
   */
  follow(runId: string, after: number, listener: (frame: LiveFrame) => void): () => void;
}

interface Follower {
  /** The last seq it was given. */
  last: number;
  listener: (frame: LiveFrame) => void;
}

interface Connection {
  abort: AbortController;
  /** Runs it still follows, with the last seq it has delivered of each. */
  runs: Map<string, number>;
}

/** Changes of the followed set within this time open one stream, not one each. */
const SETTLE_MS = 25;
/** Pauses before opening a failed stream again. */
const RETRY_MS = [1000, 2000, 5000, 10_000];

/**
 * Reads the API's refusal of a stream: the error, and the run it names (when it names one of them).
 *
 * @param res A 4xx answer.
 * @returns The error and the run it is about.
 */
async function refusalOf(res: Response): Promise<{ error: ApiError; runId?: string }> {
  const body = await res.json().catch(() => null);
  const error = new ApiError(
    res.status,
    body?.error?.kind ?? "error",
    body?.error?.message ?? `HTTP ${res.status}`,
  );
  return { error, runId: body?.error?.details?.run_id };
}

/**
 * Creates the page's stream of live runs (nothing is opened until a run is followed).
 *
 * @example
 * ```ts
 * const stop = createRunStream(fetch).follow("run_01…", 0, (f) => console.log(f.kind));
 * // … when the page no longer shows the run:
 * stop();
 * ```
 * @param fetcher How to reach the API.
 * @returns The stream.
 */
export function createRunStream(fetcher: Fetcher): RunStream {
  const followers = new Map<string, Set<Follower>>();
  /** How followed runs ended (kept while they are followed, for late followers). */
  const ended = new Map<string, LiveFrame>();
  let conn: Connection | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let failures = 0;
  /** A follower needs events the open stream has already passed. */
  let rewind = false;

  const wanted = () => [...followers.keys()].filter((id) => !ended.has(id));
  const from = (id: string) => Math.min(...[...followers.get(id)!].map((f) => f.last));
  const schedule = (ms = SETTLE_MS) => {
    clearTimeout(timer);
    timer = setTimeout(sync, ms);
  };
  const finish = (id: string, frame: LiveFrame) => {
    ended.set(id, frame);
    for (const f of [...followers.get(id) ?? []]) f.listener(frame);
  };

  const dispatch = (c: Connection, f: SseEvent) => {
    const data = f.data as { run_id?: string; seq?: number };
    const id = data.run_id;
    if (!id || !c.runs.has(id)) return;
    if (f.event === "trace" && typeof data.seq === "number") {
      c.runs.set(id, data.seq);
      for (const follower of [...followers.get(id) ?? []]) {
        if (data.seq <= follower.last) continue;
        follower.last = data.seq;
        follower.listener({ kind: "trace", run_id: id, event: data as JournalEvent });
      }
    } else if (f.event === "run_result") {
      c.runs.delete(id);
      finish(id, { kind: "result", run_id: id, result: data as RunResult });
    }
  };

  const connect = (ids: string[]) => {
    const c: Connection = { abort: new AbortController(), runs: new Map() };
    conn = c;
    const runs = ids.map((id) => {
      const after = from(id);
      c.runs.set(id, after);
      return after ? `${id}:${after}` : id;
    });
    void (async () => {
      let retry = false;
      try {
        const res = await fetcher(`/api/runs/events?runs=${encodeURIComponent(runs.join(","))}`, {
          signal: c.abort.signal,
        });
        if (res.status >= 400 && res.status < 500) {
          // A run the API will not stream (unknown, say): its followers read their data again, and
          // the others are followed on.
          const { error, runId } = await refusalOf(res);
          for (const id of runId !== undefined && ids.includes(runId) ? [runId] : ids) {
            finish(id, { kind: "gone", run_id: id, error });
          }
        } else if (!res.ok) {
          await res.body?.cancel();
          retry = true;
        } else {
          failures = 0;
          for await (const f of readSse(res)) {
            if (conn !== c) break;
            dispatch(c, f);
          }
          // Ended before its runs did (the server went away): open it again.
          retry = c.runs.size > 0;
        }
      } catch {
        retry = !c.abort.signal.aborted;
      }
      if (conn !== c) return;
      conn = null;
      if (retry) schedule(RETRY_MS[Math.min(failures++, RETRY_MS.length - 1)]);
      else schedule();
    })();
  };

  function sync() {
    timer = undefined;
    const ids = wanted();
    const current = conn;
    if (
      current && !rewind && ids.length === current.runs.size &&
      ids.every((id) => current.runs.has(id))
    ) return;
    current?.abort.abort();
    conn = null;
    rewind = false;
    if (ids.length) connect(ids);
  }

  return {
    follow(runId, after, listener) {
      const follower: Follower = { last: after, listener };
      let set = followers.get(runId);
      if (!set) followers.set(runId, set = new Set());
      set.add(follower);
      const end = ended.get(runId);
      if (end) {
        queueMicrotask(() => set.has(follower) && listener(end));
      } else {
        const passed = conn?.runs.get(runId);
        if (passed !== undefined && after < passed) rewind = true;
        schedule();
      }
      return () => {
        set.delete(follower);
        if (!set.size && followers.get(runId) === set) {
          followers.delete(runId);
          ended.delete(runId);
        }
        schedule();
      };
    },
  };
}
