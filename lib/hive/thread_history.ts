/**
 * The recent answered turns of the threads this process runs, so that a thread's next run is given
 * its history without reading the hive again. What is known of a thread holds as of a count of its
 * turns, and is used only while the thread's row (read in the transaction that starts the next run)
 * still has that count: a turn started by another process sharing the hive changes the count, and the
 * history is read from the hive again. A turn of this process is added once its end is committed
 * (never before: a turn whose end was not recorded is not known), and only onto what was known
 * just before it began. Bounded: the most recently used threads, each at most the history length it
 * was read with (docs/performance.md, Threads). A thread made by this process starts out on probation,
 * apart from the others, and joins them at its second turn: one-off threads (an A2A message without a
 * context makes one each) never push out the threads that go on.
 *
 * @module
 */

import { keepRecent } from "../recent.ts";

/** An earlier turn, as a run's history gives it: its input and final output. */
export interface AnsweredTurn {
  input: string;
  output: string;
}

/** What is known of one thread. */
interface Known {
  /** How many turns the thread had when this was true. */
  turns: number;
  /** The history length it was read with (requests for more read the hive). */
  cap: number;
  /** Its newest answered turns, oldest first, at most `cap`. */
  answered: AnsweredTurn[];
}

/** How many threads are remembered at most (the most recently used). */
const MAX_THREADS = 256;
/** The longest history remembered; longer ones are read from the hive every time. */
const MAX_CAP = 100;

const known = new Map<string, Known>();
/** Threads made by this process that have not had a second turn yet (as many at most). */
const fresh = new Map<string, Known>();
/** Turns started and not yet ended: their thread, number and input. */
const open = new Map<string, { threadId: string; seq: number; input: string }>();

/**
 * A thread's newest answered turns, when known as of `turns` turns and for at least `limit` of them.
 *
 * @param threadId The thread.
 * @param turns Its turn count, as its row says now.
 * @param limit How many answered turns at most.
 * @returns The turns (oldest first), or undefined when they must be read from the hive.
 */
export function knownHistory(
  threadId: string,
  turns: number,
  limit: number,
): AnsweredTurn[] | undefined {
  if (limit <= 0) return [];
  const entry = entryOf(threadId);
  if (!entry || entry.turns !== turns || limit > entry.cap) return undefined;
  // Used again: the most recent of the threads that go on (a fresh one leaves its probation).
  fresh.delete(threadId);
  keepRecent(known, threadId, entry, MAX_THREADS);
  return entry.answered.slice(-limit);
}

/** What is known of a thread, wherever it is kept. */
function entryOf(threadId: string): Known | undefined {
  return known.get(threadId) ?? fresh.get(threadId);
}

/**
 * What this process knows of a thread without reading it: its turn count and newest answered turns
 * as of that count (the count is checked when the turn's start is recorded: lib/hive/runs.ts).
 *
 * @param threadId The thread.
 * @param limit How many answered turns at most.
 * @returns The count and the turns (oldest first), or undefined when nothing is known for `limit`.
 */
export function knownThread(
  threadId: string,
  limit: number,
): { turns: number; history: AnsweredTurn[] } | undefined {
  const entry = entryOf(threadId);
  if (!entry) return undefined;
  const history = knownHistory(threadId, entry.turns, limit);
  return history && { turns: entry.turns, history };
}

/**
 * What this process knows of a thread that goes on (past its second turn: not a thread on
 * probation), without counting it as used: for work done ahead of its next turn, which a one-off
 * thread never has and which must not push out the threads that go on.
 *
 * @param threadId The thread.
 * @param limit How many answered turns at most.
 * @returns As {@link knownThread}, or undefined for a thread on probation or not known.
 */
export function goingThread(
  threadId: string,
  limit: number,
): { turns: number; history: AnsweredTurn[] } | undefined {
  const entry = known.get(threadId);
  if (!entry || limit > entry.cap) return undefined;
  return { turns: entry.turns, history: limit <= 0 ? [] : entry.answered.slice(-limit) };
}

/**
 * Remembers a thread's newest answered turns as read from the hive (with its turn count, in the same
 * transaction).
 *
 * @param threadId The thread.
 * @param turns Its turn count when they were read.
 * @param limit The history length they were read with.
 * @param answered The turns read (oldest first, at most `limit`).
 * @param made Whether this process has just made the thread (kept on probation until its next turn).
 */
export function rememberHistory(
  threadId: string,
  turns: number,
  limit: number,
  answered: AnsweredTurn[],
  made = false,
): void {
  if (limit <= 0 || limit > MAX_CAP) return;
  const entry = { turns, cap: limit, answered: [...answered] };
  if (made) {
    keepRecent(fresh, threadId, entry, MAX_THREADS);
    return;
  }
  fresh.delete(threadId);
  keepRecent(known, threadId, entry, MAX_THREADS);
}

/**
 * Notes a turn of this process as it starts (in the transaction recording it).
 *
 * @param runId Its run.
 * @param threadId Its thread.
 * @param seq Its number in the thread (1 for the first).
 * @param input Its whole input.
 */
export function turnStarted(runId: string, threadId: string, seq: number, input: string): void {
  open.set(runId, { threadId, seq, input });
}

/**
 * Adds a turn of this process once its end is committed: onto what was known of its thread just
 * before it began, or not at all (the thread is then read from the hive next time).
 *
 * @param runId Its run.
 * @param output Its whole output, as its end recorded it.
 */
export function turnEnded(runId: string, output: string): void {
  const turn = open.get(runId);
  if (!turn) return;
  open.delete(runId);
  const entry = entryOf(turn.threadId);
  if (!entry) return;
  if (entry.turns !== turn.seq - 1) {
    forgetThread(turn.threadId);
    return;
  }
  entry.turns = turn.seq;
  if (output === "") return;
  entry.answered.push({ input: turn.input, output });
  if (entry.answered.length > entry.cap) entry.answered.shift();
}

/**
 * Forgets a turn whose start was undone or whose end was not recorded, and what is known of its
 * thread.
 *
 * @param runId Its run.
 */
export function turnAbandoned(runId: string): void {
  const turn = open.get(runId);
  if (!turn) return;
  open.delete(runId);
  forgetThread(turn.threadId);
}

/**
 * Forgets what is known of a thread (deleted).
 *
 * @param threadId The thread.
 */
export function forgetThread(threadId: string): void {
  known.delete(threadId);
  fresh.delete(threadId);
}
