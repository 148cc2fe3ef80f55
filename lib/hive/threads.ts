/**
 * Threads in the hive: durable conversations with one harness, bound to it (id and folder) like its
 * runs, owned by the key (or local face) that made them. Each turn is its run's own row, numbered in
 * the thread (one number, one run: a unique index), with the run's whole input and, once the run has
 * ended, its whole output, so the history a new turn is given comes from the thread's newest turns
 * alone. A thread is busy while its newest turn runs in a process still there, or while a run
 * waiting for a slot holds its claim (`live_run_id` with the process holding it); both are rows of
 * the hive, so every process sharing it sees a thread busy. A turn's start and end never write the
 * thread's row: its turn count, its busy run and its last change are read from its newest turn.
 *
 * @module
 */

import { FrameworkError, notFound } from "../errors.ts";
import { newId } from "../ids.ts";
import { isProcessAlive, ownProcess } from "../process_identity.ts";
import { inTransaction } from "../sqlite/database.ts";
import { statement } from "../sqlite/statements.ts";
import type { HarnessRef } from "./harnesses.ts";
import { type Hive, isPgHive } from "./open.ts";
import { isThreadMoved, lockRunEnded, newestTurn, type TurnCondition } from "./runs.ts";
import {
  type AnsweredTurn,
  forgetThread,
  knownHistory,
  knownThread,
  rememberHistory,
  turnAbandoned,
} from "./thread_history.ts";

/** A thread as every face shows it (without its runs). */
export interface ThreadRecord {
  thread_id: string;
  harness_id: string;
  /** The `key_id` that made it, or `cli` / `workbench` for the local faces. */
  owner: string;
  metadata: Record<string, unknown>;
  created_at: string;
  updated_at: string;
  /** How many runs it has had. */
  turns: number;
  /** The run going on in it now, or null. */
  live_run_id: string | null;
}

/** One turn of a thread: its run, with the run's whole input and output. */
export interface ThreadTurn {
  run_id: string;
  status: string;
  input: string;
  /** The run's final output (null while it goes on). */
  output: string | null;
  cost_usd: number;
  turns: number;
  started_at: string | null;
}

/** A thread's own row: who made it and what for, and the claim of a run waiting for a slot. */
interface ThreadRow {
  thread_id: string;
  harness_id: string;
  harness_dir: string;
  owner: string;
  metadata: string;
  created_at: string;
  updated_at: string;
  live_run_id: string | null;
  live_pid: number | null;
  live_start: string | null;
}

/** A thread's row as {@link THREAD_SELECT} reads it: with its claim's run and its newest turn. */
interface ThreadRead extends ThreadRow {
  /** The status of the run its claim names (null: none, or not recorded yet). */
  live_status: string | null;
  live_ended: string | null;
  /** Its newest turn (all null for a thread without turns): its run, number, status and process. */
  newest_run: string | null;
  newest_seq: number | null;
  newest_status: string | null;
  /** When the newest turn ended, or started while it goes on. */
  newest_at: string | null;
  newest_pid: number | null;
  newest_start: string | null;
}

/**
 * A thread's row with its claim's run and its newest turn, read in one statement (found by the
 * thread's key, newest turns first: one index entry, whatever the thread's length): a page of threads
 * is one query, not one more per thread. Portable SQL (both stores).
 */
const THREAD_SELECT = `SELECT t.*,
       (SELECT e.status FROM runs e WHERE e.run_id = t.live_run_id) AS live_status,
       (SELECT e.ended_at FROM runs e WHERE e.run_id = t.live_run_id) AS live_ended,
       n.run_id AS newest_run, n.thread_seq AS newest_seq, n.status AS newest_status,
       coalesce(n.ended_at, n.started_at) AS newest_at, n.owner_pid AS newest_pid,
       n.owner_start AS newest_start
     FROM threads t
     LEFT JOIN runs n ON n.run_id = ${newestTurn("run_id", "t.thread_id")}`;

/** A thread's turn count: its newest turn's number. */
function turnsOf(r: ThreadRead): number {
  return Number(r.newest_seq ?? 0);
}

/**
 * Who holds a thread, and the last change its row does not show (a turn's start or end, or the end
 * of the run its claim names).
 */
interface Hold {
  /** The run holding the thread (running, or waiting for a slot), in a process still there. */
  live: string | null;
  /** The latest of its newest turn's start or end and its claim's run's end. */
  changed_at: string | null;
}

function toRecord(r: ThreadRow, turns: number, hold: Hold): ThreadRecord {
  return {
    thread_id: r.thread_id,
    harness_id: r.harness_id,
    owner: r.owner,
    metadata: JSON.parse(r.metadata),
    created_at: r.created_at,
    updated_at: later(r.updated_at, hold.changed_at)!,
    turns,
    live_run_id: hold.live,
  };
}

/** A thread as read, as every face shows it. */
function readRecord(r: ThreadRead): ThreadRecord {
  return toRecord(r, turnsOf(r), holdOf(r));
}

/**
 * Makes a thread of a harness.
 *
 * @example
 * ```ts
 * import { openHive } from "./open.ts";
 *
 * const thread = createThread(openHive(), { id: "hello", dir: "/h/hello" }, "cli", {});
 * thread.thread_id; // "thr_01J…"
 * ```
 * @param db The hive.
 * @param harness The harness.
 * @param owner Who owns it.
 * @param metadata Its metadata (checked by the request schema).
 * @param lockedBy A run that holds it from the start (its first turn, about to be submitted): the
 *   thread is made busy in the same write, with no lock of its own to take after.
 * @returns The thread.
 */
export function createThread(
  db: Hive,
  harness: HarnessRef,
  owner: string,
  metadata: Record<string, unknown>,
  lockedBy?: string,
): ThreadRecord {
  const thread = newThread(harness, owner, metadata, lockedBy);
  storeThread(db, thread);
  return threadRecord(thread);
}

/** A thread made but not stored yet ({@link newThread}): its row as the hive will hold it. */
export type NewThread = Readonly<ThreadRow>;

/**
 * A new thread of a harness, not stored yet: stored by {@link storeThread}, or by its first run's
 * start ({@link startThreadTurn}), whichever comes first.
 *
 * @param harness The harness.
 * @param owner Who owns it.
 * @param metadata Its metadata (checked by the request schema).
 * @param lockedBy The run that holds it from the start (its first turn), if any.
 * @returns The thread's row.
 */
export function newThread(
  harness: HarnessRef,
  owner: string,
  metadata: Record<string, unknown>,
  lockedBy?: string,
): NewThread {
  const now = new Date().toISOString();
  const me = lockedBy === undefined ? undefined : ownProcess();
  return {
    thread_id: newId("thr"),
    harness_id: harness.id,
    harness_dir: harness.dir,
    owner,
    metadata: JSON.stringify(metadata),
    created_at: now,
    updated_at: now,
    live_run_id: lockedBy ?? null,
    live_pid: me?.pid ?? null,
    live_start: me?.marker ?? null,
  };
}

/**
 * A new thread as every face shows it.
 *
 * @param thread The thread ({@link newThread}).
 * @returns Its record.
 */
export function threadRecord(thread: NewThread): ThreadRecord {
  return toRecord(thread, 0, { live: thread.live_run_id, changed_at: null });
}

/**
 * Stores a new thread; one stored already (by its first run's start) is left as it is.
 *
 * @param db The hive.
 * @param thread The thread ({@link newThread}).
 */
export function storeThread(db: Hive, thread: NewThread): void {
  statement(
    db,
    `INSERT INTO threads (thread_id, harness_id, harness_dir, owner, metadata, created_at, updated_at,
       live_run_id, live_pid, live_start)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (thread_id) DO NOTHING`,
  ).run(
    thread.thread_id,
    thread.harness_id,
    thread.harness_dir,
    thread.owner,
    thread.metadata,
    thread.created_at,
    thread.updated_at,
    thread.live_run_id,
    thread.live_pid,
    thread.live_start,
  );
}

/** Who may see a thread: its owner, or anyone (`null`: a `*` token, a local face). */
export type ThreadViewer = string | null;

function threadRow(
  db: Hive,
  harness: HarnessRef,
  threadId: string,
  viewer: ThreadViewer,
  lock = false,
) {
  if (lock) lockThreadRow(db, threadId);
  const row = statement(
    db,
    `${THREAD_SELECT} WHERE t.thread_id = ? AND t.harness_id = ? AND t.harness_dir = ?`,
  ).get(threadId, harness.id, harness.dir) as ThreadRead | undefined;
  // Another owner's thread is not found, as an unknown one: its existence is not disclosed.
  if (!row || (viewer !== null && row.owner !== viewer)) {
    throw notFound(`Unknown thread ${JSON.stringify(threadId)}`, { thread_id: threadId });
  }
  return row;
}

/**
 * On PostgreSQL, locks a thread's row for the caller's transaction, which goes on to read the thread
 * and write it or a turn of it: a turn's start made in one statement (lib/hive/runs.ts) takes the
 * same lock, and waits for it. The lock is its own statement, taken before the thread is read: a
 * statement reads the hive as it was when it began, and a turn that another transaction recorded
 * while this one waited for the lock changes no row of the thread's (it is a row of `runs`), so
 * only a statement begun after the lock sees it. SQLite's write transaction holds the whole hive.
 */
function lockThreadRow(db: Hive, threadId: string): void {
  if (isPgHive(db)) {
    statement(db, "SELECT 1 FROM threads WHERE thread_id = ? FOR UPDATE").get(threadId);
  }
}

/**
 * Whether an error is a thread's not-found (an unknown thread, another harness's or another
 * owner's), as {@link getThread} and {@link claimThread} throw it.
 *
 * @param err The error.
 * @param threadId The thread.
 * @returns True for that thread's not-found.
 */
export function isUnknownThread(err: unknown, threadId: string): boolean {
  return err instanceof FrameworkError && err.kind === "not_found" &&
    err.details.thread_id === threadId;
}

/** The later of two times, either missing. */
function later(a: string | null, b: string | null): string | null {
  return a === null ? b : b === null || a >= b ? a : b;
}

/**
 * Who holds a thread as its row reads (see {@link Hold}): its newest turn while it runs in a process
 * still there, else the run its claim names while that run has not ended (running, or not recorded
 * yet: waiting for a slot) and its process is there. A run of a process that has gone holds nothing.
 */
function holdOf(row: ThreadRead): Hold {
  const changed_at = later(row.newest_at, row.live_status === null ? null : row.live_ended);
  if (
    row.newest_status === "running" && row.newest_pid !== null &&
    isProcessAlive(Number(row.newest_pid), row.newest_start)
  ) {
    return { live: row.newest_run, changed_at };
  }
  const claimed = row.live_run_id !== null && row.live_pid !== null &&
    (row.live_status === null || row.live_status === "running") &&
    isProcessAlive(Number(row.live_pid), row.live_start);
  return { live: claimed ? row.live_run_id : null, changed_at };
}

/** The run holding a thread, when there is one (see {@link holdOf}). */
function liveRunOf(row: ThreadRead): string | null {
  return holdOf(row).live;
}

/**
 * One thread of a harness, as its viewer may see it.
 *
 * @param db The hive.
 * @param harness The harness.
 * @param threadId The thread.
 * @param viewer Its owner, or null for anyone.
 * @returns The thread.
 * @throws `not_found` for an unknown thread, another harness's or another owner's.
 */
export function getThread(
  db: Hive,
  harness: HarnessRef,
  threadId: string,
  viewer: ThreadViewer,
): ThreadRecord {
  return readRecord(threadRow(db, harness, threadId, viewer));
}

/**
 * The run holding a thread, as its viewer may see the thread (what {@link getThread} tells as
 * `live_run_id`, without making the record).
 *
 * @param db The hive.
 * @param harness The harness.
 * @param threadId The thread.
 * @param viewer Its owner, or null for anyone.
 * @returns The run holding it, or null when it is free.
 * @throws `not_found` as {@link getThread}.
 */
export function threadHolder(
  db: Hive,
  harness: HarnessRef,
  threadId: string,
  viewer: ThreadViewer,
): string | null {
  return liveRunOf(threadRow(db, harness, threadId, viewer));
}

/**
 * The harness a thread belongs to (for the local faces, which find a thread by its id alone).
 *
 * @param db The hive.
 * @param threadId The thread.
 * @returns Its harness (id and folder).
 * @throws `not_found` for an unknown thread.
 */
export function threadHarness(db: Hive, threadId: string): HarnessRef {
  const row = statement(db, "SELECT harness_id, harness_dir FROM threads WHERE thread_id = ?").get(
    threadId,
  ) as { harness_id: string; harness_dir: string } | undefined;
  if (!row) throw notFound(`Unknown thread ${JSON.stringify(threadId)}`, { thread_id: threadId });
  return { id: row.harness_id, dir: row.harness_dir };
}

/**
 * The turns of a thread, oldest first: each run with its whole input and output.
 *
 * @param db The hive.
 * @param threadId The thread (found with {@link getThread} first).
 * @returns Its turns.
 */
export function threadTurns(db: Hive, threadId: string): ThreadTurn[] {
  return statement(
    db,
    `SELECT run_id, status, thread_input AS input, thread_output AS output, cost_usd, turns,
       started_at
     FROM runs WHERE thread_id = ? ORDER BY thread_seq`,
  ).all(threadId) as unknown as ThreadTurn[];
}

/**
 * The run of a thread's newest turn (read by key: one row, whatever the thread's length).
 *
 * @param db The hive.
 * @param threadId The thread (found with {@link getThread} first).
 * @returns Its run id, or null for a thread without turns.
 */
export function newestTurnRun(db: Hive, threadId: string): string | null {
  const row = statement(
    db,
    `SELECT ${newestTurn("run_id", "?")} AS run_id`,
  ).get(threadId) as { run_id: string | null } | undefined;
  return row?.run_id ?? null;
}

/**
 * The output a run of a thread recorded for its turn (read by the thread's key, newest turns first).
 *
 * @param db The hive.
 * @param threadId The thread.
 * @param runId The run.
 * @returns Its whole output, or null (still going, or not a turn of the thread).
 */
export function turnOutput(db: Hive, threadId: string, runId: string): string | null {
  const row = statement(
    db,
    "SELECT thread_output AS output FROM runs WHERE run_id = ? AND thread_id = ?",
  ).get(runId, threadId) as { output: string | null } | undefined;
  return row?.output ?? null;
}

/**
 * The threads some runs of a harness belong to (the Runs list groups a page's runs by them). A
 * thread that was deleted, or is another harness's, is left out.
 *
 * @param db The hive.
 * @param harness The harness.
 * @param threadIds The threads (duplicates are fine).
 * @returns Their records, newest first.
 */
export function threadsByIds(
  db: Hive,
  harness: HarnessRef,
  threadIds: readonly string[],
): ThreadRecord[] {
  const ids = [...new Set(threadIds)];
  if (!ids.length) return [];
  const rows = statement(
    db,
    `${THREAD_SELECT} WHERE t.harness_id = ? AND t.harness_dir = ?
       AND t.thread_id IN (SELECT value FROM json_each(?))
     ORDER BY t.thread_id DESC`,
  ).all(harness.id, harness.dir, JSON.stringify(ids)) as unknown as ThreadRead[];
  return rows.map(readRecord);
}

/**
 * A page of a harness's threads, newest first.
 *
 * @param db The hive.
 * @param harness The harness.
 * @param viewer Only this owner's threads, or every thread (null).
 * @param page At most `limit` threads, after the `cursor` (a thread id of the previous page).
 * @returns The threads and the cursor of the next page (null on the last).
 */
export function listThreads(
  db: Hive,
  harness: HarnessRef,
  viewer: ThreadViewer,
  page: { limit: number; cursor?: string | undefined },
): { threads: ThreadRecord[]; next_cursor: string | null } {
  const rows = statement(
    db,
    `${THREAD_SELECT}
     WHERE t.harness_id = ?1 AND t.harness_dir = ?2 AND (CAST(?3 AS TEXT) IS NULL OR t.owner = ?3)
       AND (CAST(?4 AS TEXT) IS NULL OR t.thread_id < ?4)
     ORDER BY t.thread_id DESC LIMIT ?5`,
  ).all(
    harness.id,
    harness.dir,
    viewer,
    page.cursor ?? null,
    page.limit + 1,
  ) as unknown as ThreadRead[];
  const more = rows.length > page.limit;
  const shown = rows.slice(0, page.limit);
  return {
    threads: shown.map(readRecord),
    next_cursor: more ? shown.at(-1)!.thread_id : null,
  };
}

/**
 * Deletes a thread and its turns; its runs and their journals stay in the hive.
 *
 * @param db The hive.
 * @param harness The harness.
 * @param threadId The thread.
 * @param viewer Its owner, or null for anyone.
 * @throws `not_found` as {@link getThread}; `conflict` while a run of it is going.
 */
export function deleteThread(
  db: Hive,
  harness: HarnessRef,
  threadId: string,
  viewer: ThreadViewer,
): void {
  inTransaction(db, () => {
    const row = threadRow(db, harness, threadId, viewer, true);
    const live = liveRunOf(row);
    if (live) {
      throw new FrameworkError(
        "conflict",
        `Thread ${threadId} has a run going (${live}); stop it or wait for it, then delete the thread`,
        { run_id: live },
      );
    }
    // Its runs stay, without the conversation's whole text (their excerpts and journals stay).
    statement(
      db,
      "UPDATE runs SET thread_input = NULL, thread_output = NULL WHERE thread_id = ?",
    ).run(threadId);
    statement(db, "DELETE FROM threads WHERE thread_id = ?").run(threadId);
  });
  forgetThread(threadId);
}

/**
 * Takes a thread's busy lock for a run, unless another run holds it (a lock whose process has gone,
 * or whose run has ended, is free again).
 *
 * @param db The hive.
 * @param threadId The thread.
 * @param runId The run that will hold it.
 * @returns Null when taken; else the run holding it.
 */
export function lockThread(db: Hive, threadId: string, runId: string): string | null {
  return inTransaction(db, () => takeLock(db, threadId, runId));
}

/**
 * Takes a thread's lock in the caller's transaction: one conditional write when it is free (the
 * common case: no claim of another run that goes on, and its newest turn not running), else the row
 * read and its holder checked as {@link lockRow} does (a run of a process that has gone holds
 * nothing).
 */
function takeLock(db: Hive, threadId: string, runId: string): string | null {
  lockThreadRow(db, threadId);
  const me = ownProcess();
  const taken = statement(
    db,
    `UPDATE threads SET live_run_id = ?1, live_pid = ?2, live_start = ?3
     WHERE thread_id = ?4 AND (live_run_id IS NULL OR live_run_id = ?1 OR ${
      lockRunEnded("threads")
    }) AND ${NEWEST_NOT_RUNNING}`,
  ).run(runId, me.pid, me.marker, threadId);
  if (Number(taken.changes) > 0) return null;
  return lockRow(db, rowById(db, threadId), runId);
}

/** SQL true when the newest turn of thread `?4` is not running (or it has none). */
const NEWEST_NOT_RUNNING = `coalesce(${newestTurn("status", "?4")}, '') <> 'running'`;

/** A thread's row by its id alone (the caller found it as its viewer may see it). */
function rowById(db: Hive, threadId: string): ThreadRead {
  const row = statement(db, `${THREAD_SELECT} WHERE t.thread_id = ?`).get(threadId) as
    | ThreadRead
    | undefined;
  if (!row) throw notFound(`Unknown thread ${JSON.stringify(threadId)}`, { thread_id: threadId });
  return row;
}

/**
 * The error of a message to a thread that a run of it holds (409): which run, and what to do.
 *
 * @param threadId The thread.
 * @param holder The run holding it.
 * @returns A `conflict` error (`details.run_id`, `details.thread_id`).
 */
export function threadBusy(threadId: string, holder: string): FrameworkError {
  return new FrameworkError(
    "conflict",
    `Thread ${threadId} has a run going (${holder}); send busy=steer to tell it, busy=queue to run after it, or wait`,
    { run_id: holder, thread_id: threadId },
  );
}

/**
 * Whether an error is {@link threadBusy}'s for that thread.
 *
 * @param err The error.
 * @param threadId The thread.
 * @returns True for that thread's busy error.
 */
export function isThreadBusy(err: unknown, threadId: string): boolean {
  return err instanceof FrameworkError && err.kind === "conflict" &&
    err.details.thread_id === threadId;
}

/** A turn's start: the thread, who asks, and how many earlier turns its run is given. */
export interface TurnStart {
  harness: HarnessRef;
  threadId: string;
  /** The run that will hold the thread (it may hold it already: a run that waited for a slot). */
  runId: string;
  /** Its owner, or null for anyone. */
  viewer: ThreadViewer;
  /** How many earlier turns the run is given (`limits.thread_history_turns`). */
  historyTurns: number;
  /**
   * The thread, when it is new ({@link newThread}, made held by this run): stored with the run's
   * start (after its row) unless it was already, with no turns to read and no lock to check.
   */
  made?: NewThread;
  /** Whether the new thread was stored already (while its run waited for a slot). */
  stored?: boolean;
}

/**
 * Starts a run of a thread in one transaction: the thread found as its viewer may see it, checked
 * free (or held by this run already), its newest turns read as the run's history, and the run
 * recorded by `start` (its row is the thread's next turn, which holds the thread while it runs:
 * lib/hive/runs.ts), so the check, the history and the run's start are one read of the hive and one
 * commit. A thread another run holds is left alone and nothing is recorded.
 *
 * A thread whose history this process knows (it ran the thread's last turn) is not read first: the
 * run is given that history and recorded on the condition that the thread is still as known (one
 * statement, no transaction of its own: lib/hive/runs.ts; on PostgreSQL it takes the thread's row
 * lock, as every transaction that writes a thread does): its number is the one after the turns this
 * process knows, and no other turn may have it. A thread that changed meanwhile (another process's
 * turn, a run's claim, deleted) records nothing, and the start above follows.
 *
 * @param db The hive.
 * @param turn The thread, the run, who asks, and how much history.
 * @param start Records and launches the run (synchronous), given the thread's earlier turns, and
 *   the condition its record is made on (none: in this transaction, the thread checked; a new
 *   thread's: its first turn, the thread stored after it, or, stored while the run waited, none of
 *   its turns and held by this run).
 * @returns What `start` returns.
 * @throws {@link threadBusy} while another run holds the thread; `not_found` for a thread the viewer
 *   may not see (or one deleted).
 */
export function startThreadTurn<T>(
  db: Hive,
  turn: TurnStart,
  start: (history: AnsweredTurn[], condition?: TurnCondition) => T,
): T {
  const { threadId, runId, made, historyTurns } = turn;
  const known = made ? undefined : knownThread(threadId, historyTurns);
  if (known) {
    try {
      return start(known.history, {
        harness: turn.harness,
        turns: known.turns,
        viewer: turn.viewer,
      });
    } catch (err) {
      if (!isThreadMoved(err)) {
        // Failed after it was recorded, with no transaction to roll back: its start is undone.
        turnAbandoned(runId);
        undoTurnStart(db, threadId, runId);
        throw err;
      }
    }
  }
  try {
    return inTransaction(db, () => {
      if (made) {
        // A new thread is made held by this run: it has no turns to read and no lock to check.
        rememberHistory(threadId, 0, historyTurns, [], true);
        if (!turn.stored) {
          // Stored after its first turn's row: the turn is recorded with nothing read (number 1),
          // and the thread's row written once.
          const out = start([], { harness: turn.harness, turns: 0, viewer: null, first: true });
          storeThread(db, made);
          return out;
        }
        // Stored while the run waited for a slot: its first turn is recorded as a known thread's is
        // (its number not read back), on the condition that it has no turns and this run holds it.
        storeThread(db, made);
        try {
          return start([], { harness: turn.harness, turns: 0, viewer: null });
        } catch (err) {
          if (!isThreadMoved(err)) throw err;
          // Stored while the run waited, and no longer as made (no other run can take a held
          // thread's lock, nor delete it: a guard, not a path a message takes).
          forgetThread(threadId);
          throw new FrameworkError(
            "conflict",
            `Thread ${threadId} changed while its first message waited for a slot; send it again`,
            { thread_id: threadId },
          );
        }
      }
      const row = threadRow(db, turn.harness, threadId, turn.viewer, true);
      const holder = heldByMe(row, runId) ? null : liveRunOf(row);
      if (holder !== null && holder !== runId) throw threadBusy(threadId, holder);
      // The history this process knows as of the thread's turn count, else read (and remembered).
      const turns = turnsOf(row);
      let history = knownHistory(threadId, turns, historyTurns);
      if (!history) {
        history = threadHistory(db, threadId, historyTurns);
        rememberHistory(threadId, turns, historyTurns, history);
      }
      return start(history);
    });
  } catch (err) {
    turnAbandoned(runId); // its start was undone
    throw err;
  }
}

/**
 * Undoes a turn's start recorded without a transaction of its own (its launch failed after): the
 * run's row (the thread's newest turn) is deleted, and its claim, if it had one, let go. A start
 * never recorded leaves nothing to undo; a hive out of reach is logged (the turn's run never ends, so
 * the thread's next message finds it stale once this process is gone).
 */
function undoTurnStart(db: Hive, threadId: string, runId: string): void {
  try {
    inTransaction(db, () => {
      const gone = statement(db, "DELETE FROM runs WHERE run_id = ? AND thread_id = ?")
        .run(runId, threadId);
      if (!Number(gone.changes)) return;
      unlockThread(db, threadId, runId);
    });
  } catch (err) {
    console.error(`warning: could not undo the start of ${runId}: ${(err as Error).message}`);
  }
}

/** Whether a row's lock is held by this run of this process (a run that waited for a slot). */
function heldByMe(row: ThreadRow, runId: string): boolean {
  const me = ownProcess();
  return row.live_run_id === runId && row.live_pid === me.pid && row.live_start === me.marker;
}

/**
 * Takes a thread's busy lock for a run as its viewer may: the thread is read and locked in one
 * transaction (what {@link getThread} then {@link lockThread} would do, with one read and one commit).
 *
 * @param db The hive.
 * @param harness The harness.
 * @param threadId The thread.
 * @param viewer Its owner, or null for anyone.
 * @param runId The run that will hold it.
 * @returns Null when taken; else the run holding it.
 * @throws `not_found` as {@link getThread}.
 */
export function claimThread(
  db: Hive,
  harness: HarnessRef,
  threadId: string,
  viewer: ThreadViewer,
  runId: string,
): string | null {
  return inTransaction(
    db,
    () => lockRow(db, threadRow(db, harness, threadId, viewer, true), runId),
  );
}

/**
 * Claims a thread (its row read in the caller's transaction) for a run, unless another run holds it.
 */
function lockRow(db: Hive, row: ThreadRead, runId: string): string | null {
  // Held by this run of this process already (a new thread made for it, a run that waited).
  if (heldByMe(row, runId)) return null;
  const live = liveRunOf(row);
  if (live !== null && live !== runId) return live;
  const me = ownProcess();
  statement(
    db,
    "UPDATE threads SET live_run_id = ?, live_pid = ?, live_start = ? WHERE thread_id = ?",
  ).run(runId, me.pid, me.marker, row.thread_id);
  return null;
}

/**
 * Lets go of a thread's claim, when this run holds it (a run that never started).
 *
 * @param db The hive.
 * @param threadId The thread.
 * @param runId The run.
 */
export function unlockThread(db: Hive, threadId: string, runId: string): void {
  statement(
    db,
    `UPDATE threads SET live_run_id = NULL, live_pid = NULL, live_start = NULL
     WHERE thread_id = ? AND live_run_id = ?`,
  ).run(threadId, runId);
}

/**
 * A thread's newest turns that have an answer, as a run's history: oldest first, at most `limit`.
 * Reads the thread's last rows by key, whatever its length.
 *
 * @param db The hive.
 * @param threadId The thread.
 * @param limit How many turns at most (`limits.thread_history_turns`).
 * @returns The turns' inputs and outputs.
 */
export function threadHistory(
  db: Hive,
  threadId: string,
  limit: number,
): AnsweredTurn[] {
  if (limit <= 0) return [];
  const rows = statement(
    db,
    `SELECT thread_input AS input, thread_output AS output FROM runs
     WHERE thread_id = ? AND thread_output IS NOT NULL AND thread_output != ''
     ORDER BY thread_seq DESC LIMIT ?`,
  ).all(threadId, limit) as { input: string; output: string }[];
  return rows.reverse().map((r) => ({ input: r.input, output: r.output }));
}
