/**
 * Runs of a thread: an ordinary run through the run service, whose first model call is given the
 * thread's earlier turns (each one's input and final output, newest last, at most
 * `limits.thread_history_turns`, default 20). A thread runs one turn at a time; a message that comes
 * while a run of it is going is refused (`reject`, the default), delivered to that run as a steering
 * message at its next turn boundary (`steer`), or run after it (`queue`). The busy lock is in the hive,
 * so a thread is busy for every process sharing it.
 *
 * @module
 */

import { badInput, FrameworkError } from "../errors.ts";
import type { HarnessRef } from "../hive/harnesses.ts";
import { type AnsweredTurn, goingThread } from "../hive/thread_history.ts";
import type { Hive } from "../hive/open.ts";
import {
  claimThread,
  createThread,
  isThreadBusy,
  isUnknownThread,
  lockThread,
  newThread,
  startThreadTurn,
  storeThread,
  threadBusy,
  threadHolder,
  type ThreadRecord,
  threadRecord,
  type ThreadViewer,
  type TurnStart,
  unlockThread,
} from "../hive/threads.ts";
import { newRunId } from "../ids.ts";
import { freezeWithSlot } from "../frozen_slot.ts";
import { journalTogether, prepareJournalList } from "../journal/payload.ts";
import { compileRedaction } from "../journal/redact.ts";
import { measureTogether, type Message } from "../models/types.ts";
import type { BusyPolicy, RunRequest } from "../requests.ts";
import { activeRun } from "../runner/active_runs.ts";
import type { PreparedRun, RunOptions } from "../runner/prepare_run.ts";
import { abortable } from "../sleep.ts";
import { keepRecent } from "../recent.ts";
import type { HarnessTarget, RunService, Submission, SubmitOptions } from "./service.ts";

/** How many earlier turns a thread's run is given when `limits.thread_history_turns` is not set. */
export const DEFAULT_THREAD_HISTORY_TURNS = 20;

/** How often a run waiting for a thread looks again (a run of another process may hold it). */
const WAIT_POLL_MS = 200;

/** What a message to a thread became: a run of it, or a steering message of its run going on. */
export type ThreadSubmission =
  | { kind: "run"; submission: Submission }
  | { kind: "steered"; run_id: string; message_id: string };

/** Options of {@link submitToThread}. */
export interface ThreadRunOptions extends SubmitOptions {
  /** What to do when a run of the thread is going (default `reject`). */
  busy?: BusyPolicy;
  /** Who asks: the thread's owner, or null for anyone (a `*` token, a local face). */
  viewer: ThreadViewer;
}

/**
 * Whom a caller's token shows threads of: its own key's, or every thread (a token holding `*`).
 *
 * @example
 * ```ts
 * threadViewer({ key_id: "k_1", scopes: ["run", "read"] }); // "k_1"
 * threadViewer({ key_id: "k_2", scopes: ["*"] }); // null
 * ```
 * @param who The verified key and its token's scopes.
 * @returns The viewer: the key, or null for anyone.
 */
export function threadViewer(who: { key_id: string; scopes: readonly string[] }): ThreadViewer {
  return who.scopes.includes("*") ? null : who.key_id;
}

/**
 * The runs of this process waiting for a thread (`busy=queue`), woken when a run of it ends. A turn
 * that ends with none waiting wakes nobody (and makes nothing to do so).
 */
const waiting = new Map<string, Set<() => void>>();

/** Wakes the runs of this process waiting for a thread, if any. */
function wakeWaiting(threadId: string): void {
  const wakes = waiting.get(threadId);
  if (wakes) { for (const wake of [...wakes]) wake(); }
}

/** Waits until this run holds the thread (the run before it has ended). */
async function waitForThread(
  db: Hive,
  threadId: string,
  runId: string,
  signal: AbortSignal,
): Promise<void> {
  while (lockThread(db, threadId, runId) !== null) {
    // Woken by a run of this process that ends, or after a while (a run of another process).
    let wake = () => {};
    const woken = new Promise<void>((resolve) => (wake = resolve));
    let wakes = waiting.get(threadId);
    if (!wakes) waiting.set(threadId, wakes = new Set());
    wakes.add(wake);
    const timer = setTimeout(wake, WAIT_POLL_MS);
    try {
      await abortable(woken, signal);
    } finally {
      clearTimeout(timer);
      wakes.delete(wake);
      if (!wakes.size && waiting.get(threadId) === wakes) waiting.delete(threadId);
    }
  }
}

/** Delivers a message to a thread's run going on, as a steering message. */
function steerLive(liveRunId: string, request: RunRequest): ThreadSubmission {
  if (request.input === undefined || request.input_file !== undefined) {
    throw badInput(
      "busy=steer delivers text to the run going on: send `input` alone (no `input_file`)",
      { field: "input" },
    );
  }
  const handle = activeRun(liveRunId);
  if (!handle) {
    throw new FrameworkError(
      "conflict",
      `The thread's run ${liveRunId} is going in another process; send busy=queue, or wait for it`,
      { run_id: liveRunId },
    );
  }
  const message = handle.controls.steer(request.input);
  return { kind: "steered", run_id: liveRunId, message_id: message.id };
}

/**
 * The thread a message goes to: a new one of the harness (`new`, owned by `owner`), or the one named.
 *
 * @example
 * ```ts
 * import { openHive } from "../hive/open.ts";
 *
 * threadNamed(openHive(), { id: "hello", dir: "/h/hello" }, "new", "cli"); // "thr_01J…"
 * ```
 * @param db The hive.
 * @param harness The harness.
 * @param name `new`, or a thread id.
 * @param owner Who owns a new thread.
 * @returns The thread id.
 */
export function threadNamed(db: Hive, harness: HarnessRef, name: string, owner: string): string {
  return name === "new" ? createThread(db, harness, owner, {}).thread_id : name;
}

/**
 * Sends a message to a thread: a new run of it, or, while a run of it is going, what the busy policy
 * says.
 *
 * @example
 * ```ts
 * import { openHive } from "../hive/open.ts";
 * import { createThread } from "../hive/threads.ts";
 * import { createRunService } from "./service.ts";
 *
 * const db = openHive();
 * const harness = { id: "hello", dir: await Deno.realPath("./harnesses/hello") };
 * const thread = createThread(db, harness, "cli", {});
 * const sent = await submitToThread(db, createRunService(), harness.dir, harness, thread.thread_id, {
 *   input: "Hi",
 * }, { viewer: null });
 * if (sent.kind === "run") console.log((await sent.submission.result).thread_id);
 * ```
 * @param db The hive.
 * @param runs The run service.
 * @param target The harness folder, or the trust gate's proof for it.
 * @param harness The harness (its id and folder), which owns the thread.
 * @param threadId The thread.
 * @param request The run's request, read by the run schema.
 * @param options The busy policy, who asks, and the run's other options.
 * @returns The run, or the steering message it became.
 * @throws `not_found` for a thread the viewer may not see; `conflict` (`details.run_id`) for a busy
 *   thread under `reject`; the run service's errors.
 */
export async function submitToThread(
  db: Hive,
  runs: RunService,
  target: HarnessTarget,
  harness: HarnessRef,
  threadId: string,
  request: RunRequest,
  options: ThreadRunOptions,
): Promise<ThreadSubmission> {
  const { busy = "reject", viewer, ...submitOptions } = options;
  const runId = submitOptions.runId ?? newRunId();
  if (busy === "reject") {
    return {
      kind: "run",
      submission: await submitFree(db, runs, target, harness, threadId, request, {
        ...submitOptions,
        runId,
        viewer,
      }),
    };
  }
  // The thread is found (as its viewer may see it) and taken in one transaction.
  const holder = claimThread(db, harness, threadId, viewer, runId);
  if (holder !== null && busy === "steer") return steerLive(holder, request);
  const submission = await submitTurn(db, runs, target, threadId, request, {
    ...submitOptions,
    runId,
    threadId,
    // Once it has its slot: the thread, after the run before it (under `queue`).
    ...(holder !== null
      ? {
        beforeLaunch: (_: PreparedRun, signal: AbortSignal) =>
          waitForThread(db, threadId, runId, signal),
      }
      : {}),
    // Then its history is read, and its start recorded, in one transaction.
    aroundLaunch: turnLaunch(db, harness, threadId, runId, viewer, submitOptions.history),
  });
  return { kind: "run", submission };
}

/** A thread run's start: the thread, the run, who asks, and the harness's history length. */
function turnStart(
  harness: HarnessRef,
  threadId: string,
  runId: string,
  viewer: ThreadViewer,
  prepared: PreparedRun,
): TurnStart {
  const limit = prepared.loaded.spec.limits?.thread_history_turns;
  return { harness, threadId, runId, viewer, historyTurns: limit ?? DEFAULT_THREAD_HISTORY_TURNS };
}

/**
 * The launch of a turn of a thread that exists: its start transaction (lib/hive/threads.ts) checks
 * the thread and reads its history, which the run is given before the caller's own messages.
 */
function turnLaunch(
  db: Hive,
  harness: HarnessRef,
  threadId: string,
  runId: string,
  viewer: ThreadViewer,
  own: Message[] | undefined,
): NonNullable<SubmitOptions["aroundLaunch"]> {
  return (launch, prepared) => {
    const turn = turnStart(harness, threadId, runId, viewer, prepared);
    return startThreadTurn(
      db,
      turn,
      (history, condition) =>
        launch({
          ...withHistory(threadId, history, own),
          ...(condition ? { threadIf: condition } : {}),
          afterEnd: nextTurnAhead(threadId, turn.historyTurns, prepared),
        }),
    );
  };
}

/**
 * What a turn does once its end is recorded, while the disk writes it: the thread's next history is
 * made from what this process now knows of it (its messages, and their text as the next run's
 * journal will hold it), so the next turn finds both made. Nothing is made for a thread this process
 * does not know, or has made and seen one turn of (most such threads have no other: an A2A message
 * without a context); a next turn whose history turns out otherwise makes its own, as before.
 */
function nextTurnAhead(
  threadId: string,
  historyTurns: number,
  prepared: PreparedRun,
): () => void {
  return () => {
    const next = goingThread(threadId, historyTurns);
    if (!next) return;
    const redaction = compileRedaction(prepared.loaded.spec.logging?.redact);
    prepareJournalList(historyMessages(threadId, next.history), redaction);
  };
}

/** A thread run's history option: its thread's earlier turns, then the caller's own messages. */
function withHistory(
  threadId: string,
  turns: readonly AnsweredTurn[],
  own: Message[] | undefined,
): Partial<RunOptions> {
  const history = historyMessages(threadId, turns);
  return { history: own?.length ? [...history, ...own] : [...history] };
}

/**
 * A thread's earlier turns as the conversation's messages, two frozen ones per turn: the same
 * messages for the same turn (the turns a process remembers of a thread are given to each of its
 * runs). The messages last made for a thread are kept with the turns they were made of, and a run
 * whose turns are those shifted by the turns since takes them over, matched by identity alone (the
 * turns themselves are not read again); they are journaled together, their text made from the last
 * run's (lib/journal/payload.ts), so the history's older messages are not read again either.
 */
function historyMessages(threadId: string, turns: readonly AnsweredTurn[]): readonly Message[] {
  const last = lastMessages.get(threadId);
  // The same turns as last time (made ahead, when the turn before ended): the same messages.
  if (last && sameTurns(last.turns, turns)) {
    keepRecent(lastMessages, threadId, last, MAX_THREAD_MESSAGES);
    return last.messages;
  }
  const messages: Message[] = [];
  const first = last && turns.length ? last.turns.indexOf(turns[0]!) : -1;
  let k = first;
  for (const turn of turns) {
    if (k >= 0 && last!.turns[k] === turn) {
      messages.push(last!.messages[2 * k]!, last!.messages[2 * k + 1]!);
      k++;
      continue;
    }
    k = -1;
    messages.push(
      freezeWithSlot({ role: "user", content: turn.input }),
      freezeWithSlot({ role: "assistant", content: turn.output }),
    );
  }
  // Journaled together (the run's first model call), their text made from the last run's, and
  // measured together (each model call's token estimate), their sum made from the last run's.
  const after = last && first >= 0 ? { items: last.messages, dropped: 2 * first } : undefined;
  journalTogether(messages, after);
  measureTogether(messages, after);
  keepRecent(lastMessages, threadId, { turns: [...turns], messages }, MAX_THREAD_MESSAGES);
  return messages;
}

/** Whether two lists hold the same turns (the same objects), in the same order. */
function sameTurns(a: readonly AnsweredTurn[], b: readonly AnsweredTurn[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The messages last made of each thread's turns (the most recently used threads). */
const lastMessages = new Map<
  string,
  { turns: readonly AnsweredTurn[]; messages: readonly Message[] }
>();
const MAX_THREAD_MESSAGES = 256;

/**
 * A message to a thread under `reject`: a run whose start finds the thread (as its viewer may see
 * it), checks it free, reads its history and records the run, in one transaction, when its slot is
 * free at once (one read of the hive, one commit); refused (409) when a run of it is going, and not
 * found (404) for a thread the viewer may not see, with nothing recorded. A run that waits for a
 * slot takes the thread at once, as {@link claimThread} does (the thread is busy while it waits).
 * Two messages racing for a free thread: the second to start is refused.
 */
async function submitFree(
  db: Hive,
  runs: RunService,
  target: HarnessTarget,
  harness: HarnessRef,
  threadId: string,
  request: RunRequest,
  options: SubmitOptions & { runId: string; viewer: ThreadViewer },
): Promise<Submission> {
  const { viewer, ...submitOptions } = options;
  const { runId } = submitOptions;
  // A message that would wait for a slot is checked first, so a refused one never takes a place in
  // the queue (a run that starts at once is checked by its start, in the same transaction).
  if (!runs.startsAtOnce()) {
    const holder = threadHolder(db, harness, threadId, viewer);
    if (holder !== null) throw threadBusy(threadId, holder);
  }
  // A run refused after it was queued (the thread was taken meanwhile) never starts.
  let refused: unknown;
  const launchTurn = turnLaunch(db, harness, threadId, runId, viewer, submitOptions.history);
  const submission = await submitTurn(db, runs, target, threadId, request, {
    ...submitOptions,
    threadId,
    aroundLaunch: (launch, prepared) => {
      if (refused !== undefined) throw refused;
      return launchTurn(launch, prepared);
    },
  });
  if (submission.queued) {
    // Waiting for a slot: the thread is found and taken now, so it is busy while the run waits.
    try {
      const taken = claimThread(db, harness, threadId, viewer, runId);
      if (taken !== null) throw threadBusy(threadId, taken);
    } catch (err) {
      refused = err;
      throw err;
    }
    return submission;
  }
  // Started at once, or refused at its start (a thread another run holds, or one the viewer may not
  // see): the refusal is this message's answer.
  try {
    await submission.started;
  } catch (err) {
    if (isThreadBusy(err, threadId) || isUnknownThread(err, threadId)) throw err;
  }
  return submission;
}

/**
 * Starts a new thread of a harness with its first message: the thread is made already held by the
 * message's run (no lock to take after, and no earlier turns to read) and stored in the transaction
 * recording the run's start when a slot is free at once (one commit), or at once when the run waits
 * for a slot (the thread can be read, and is busy, while it waits). It is returned once stored. A
 * first message whose run could not be submitted or started leaves no thread behind.
 *
 * @example
 * ```ts
 * import { openHive } from "../hive/open.ts";
 * import { createRunService } from "./service.ts";
 *
 * const harness = { id: "hello", dir: await Deno.realPath("./harnesses/hello") };
 * const { thread, submission } = await startThread(openHive(), createRunService(), harness.dir,
 *   harness, { owner: "cli", metadata: {} }, { input: "Hi" }, {});
 * console.log(thread.thread_id, (await submission.result).output);
 * ```
 * @param db The hive.
 * @param runs The run service.
 * @param target The harness folder, or the trust gate's proof for it.
 * @param harness The harness (its id and folder), which owns the thread.
 * @param thread Who owns the new thread, and its metadata.
 * @param request The run's request, read by the run schema.
 * @param options The run's options (`history`: messages of the caller's before the input).
 * @returns The thread and its first run.
 * @throws The run service's errors (the thread is deleted then).
 */
export async function startThread(
  db: Hive,
  runs: RunService,
  target: HarnessTarget,
  harness: HarnessRef,
  thread: { owner: string; metadata: Record<string, unknown> },
  request: RunRequest,
  options: SubmitOptions,
): Promise<{ thread: ThreadRecord; submission: Submission }> {
  const runId = options.runId ?? newRunId();
  const made = newThread(harness, thread.owner, thread.metadata, runId);
  const threadId = made.thread_id;
  // A first message refused after its run was queued: that run never starts.
  let refused: unknown;
  // Stored while its run waits for a slot (else with the run's start).
  let stored = false;
  // A message whose run cannot be submitted leaves no thread behind: none is stored before.
  const submission = await submitTurn(db, runs, target, threadId, request, {
    ...options,
    runId,
    threadId,
    // Stored with the run's start when its slot is free at once (one commit).
    aroundLaunch: (launch, prepared) => {
      if (refused !== undefined) throw refused;
      return startThreadTurn(
        db,
        { ...turnStart(harness, threadId, runId, null, prepared), made, stored },
        (_, condition) => launch(condition ? { threadIf: condition } : {}),
      );
    },
  });
  if (submission.queued) {
    // Waiting for a slot: stored now, so it can be read (and is busy) while the run waits.
    try {
      storeThread(db, made);
      stored = true;
    } catch (err) {
      refused = err;
      throw err;
    }
  } else {
    // Started at once with its thread stored, or could not start and stored none.
    await submission.started.catch(() => {});
  }
  return { thread: threadRecord(made), submission };
}

/**
 * Submits a run of a thread its run already holds; the thread is let go when the run cannot be
 * submitted or never starts, and the runs waiting for it are woken when it ends.
 */
async function submitTurn(
  db: Hive,
  runs: RunService,
  target: HarnessTarget,
  threadId: string,
  request: RunRequest,
  options: SubmitOptions & { runId: string },
): Promise<Submission> {
  const { runId } = options;
  let submission: Submission;
  try {
    submission = await runs.submit(target, request, options);
  } catch (err) {
    unlockThread(db, threadId, runId);
    throw err;
  }
  // A run that never started lets the thread go; a run that ended wakes the next one waiting here.
  submission.started.catch(() => {
    try {
      unlockThread(db, threadId, runId);
    } catch (err) {
      // The hive out of reach: the lock's run never starts, so the next message finds it stale.
      console.error(`warning: could not let go of thread ${threadId}: ${(err as Error).message}`);
    }
  });
  submission.result.finally(() => wakeWaiting(threadId)).catch(() => {});
  return submission;
}
