/**
 * Group commit for one file or folder: every caller of {@link flushPath} is answered once what was
 * written to that path before its call is on disk, and callers that arrive together share one
 * `fdatasync`. While a flush of a path is in flight, the calls that arrive wait for it to end and are
 * then served together by the next flush (a flush that started before a call cannot vouch for what
 * the caller wrote just before calling). The window is adaptive by construction: alone, a caller
 * waits for its own flush only; under load, it waits at most for the flush in flight plus its own,
 * and the flushes per caller fall as callers arrive faster (docs/performance.md).
 *
 * The hive's write-ahead log and the trace folders (the names of new journals) are flushed this way.
 *
 * @module
 */

/** A flush in preparation: callers collected while the one before it runs. */
interface Batch {
  promise: Promise<void>;
  resolve: () => void;
  reject: (err: unknown) => void;
  callers: number;
}

/** One path's state: the flush in flight and the batch waiting for it. */
interface Path {
  running?: Promise<void>;
  next?: Batch;
}

/** How the flushes of this process went, for the benchmarks (docs/performance.md). */
export interface FlushCounts {
  /** Calls of {@link flushPath}. */
  requests: number;
  /** `fdatasync`s made for them. */
  flushes: number;
  /** Callers served by the largest single flush. */
  largest: number;
  /** Milliseconds the callers waited in all, from their call to their answer. */
  waited_ms: number;
}

const paths = new Map<string, Path>();
const counts: FlushCounts = { requests: 0, flushes: 0, largest: 0, waited_ms: 0 };

/**
 * `fdatasync` of a path through a descriptor of its own (read-only: a folder opens too). The path is
 * opened at once, in the caller's turn, so the flush is under way when the caller goes on: opened on
 * the thread pool, its flush would start only once the event loop next ran, after whatever the
 * caller does next (a thread's run makes its next turn's history then: lib/runs/threads.ts).
 */
function syncData(path: string): Promise<void> {
  let file: Deno.FsFile;
  try {
    file = Deno.openSync(path, { read: true });
  } catch (err) {
    return Promise.reject(err);
  }
  return file.syncData().finally(() => file.close());
}

/** A batch with its promise's settle functions. */
function newBatch(): Batch {
  const { promise, resolve, reject } = Promise.withResolvers<void>();
  // A batch nobody awaits any more (every caller gone) must not report an unhandled rejection.
  promise.catch(() => {});
  return { promise, resolve, reject, callers: 0 };
}

/** Starts the flush of `batch`; when it ends, starts the batch collected meanwhile, if any. */
function start(key: string, state: Path, batch: Batch, sync: (path: string) => Promise<void>) {
  counts.flushes += 1;
  counts.largest = Math.max(counts.largest, batch.callers);
  state.running = sync(key).then(batch.resolve, batch.reject).finally(() => {
    state.running = undefined;
    const waiting = state.next;
    state.next = undefined;
    if (waiting) start(key, state, waiting, sync);
    else if (paths.get(key) === state) paths.delete(key);
  });
}

/**
 * Resolves once everything written to `path` before the call is durable (its data and the metadata
 * needed to read it back: `fdatasync`, or the folder's entries for a folder). Concurrent calls for
 * the same path share flushes: at most one is in flight per path, and the calls that arrive during
 * it are answered by the one after it.
 *
 * @example
 * ```ts
 * await Deno.writeTextFile("/tmp/wal", "frame", { append: true });
 * await flushPath("/tmp/wal"); // the frame is on disk
 * ```
 * @param path A file or a folder.
 * @param sync The flush (tests pass their own; the default opens the path and `fdatasync`s it).
 * @returns Settles when the flush that covers this call ends (rejects with its error).
 */
export function flushPath(
  path: string,
  sync: (path: string) => Promise<void> = syncData,
): Promise<void> {
  counts.requests += 1;
  const asked = performance.now();
  const waited = () => void (counts.waited_ms += performance.now() - asked);
  let state = paths.get(path);
  if (!state) paths.set(path, state = {});
  if (state.running) {
    state.next ??= newBatch();
    state.next.callers += 1;
    return state.next.promise.finally(waited);
  }
  const batch = newBatch();
  batch.callers = 1;
  start(path, state, batch, sync);
  return batch.promise.finally(waited);
}

/**
 * How many flushes this process asked for and made so far (the benchmarks read it to measure the
 * group-commit window).
 *
 * @returns A copy of the counters.
 */
export function flushCounts(): FlushCounts {
  return { ...counts };
}
