/**
 * The calling side of the bridge to a PostgreSQL worker thread (lib/pg/worker.ts): a call writes its
 * request into shared memory (lib/pg/ring.ts; the message port when JSON would not carry its values
 * exactly, the worker putting requests back in order by id) and sleeps on the shared flag until its
 * answer is there, bounded by the answer timeout
 * (then the database counts as lost and the worker is told to start afresh); a statement may also be
 * sent without waiting, its answer taken by whichever wait comes next (answers come in order on the
 * worker's one connection) and its failure kept under a tag. lib/pg/connection.ts builds the
 * synchronous connection on it.
 *
 * @module
 */

import { receiveMessageOnPort } from "node:worker_threads";
import type { MessagePort } from "node:worker_threads";
import { FrameworkError, hiveUnavailable } from "../errors.ts";
import type { SqlValue } from "../sqlite/statements.ts";
import {
  ANSWERS_RING,
  FLAG,
  jsonExact,
  type PgAnswer,
  type PgCall,
  REQUESTS_RING,
} from "./protocol.ts";
import { ringOver } from "./ring.ts";

/** What the bridges of this process have done (for benchmarks): calls, and time spent waiting. */
export interface BridgeCounts {
  /** Round trips the calling thread waited for. */
  calls: number;
  /** Statements sent without waiting for their answer (they travel with a later round trip). */
  sent: number;
  /** Milliseconds the calling thread spent waiting for answers, all calls together. */
  waitMs: number;
  /** Calls by statement text (first 80 characters), when `FRAMEWORK_PG_TRACE` is set. */
  bySql?: Record<string, number>;
}

const counts: BridgeCounts = { calls: 0, sent: 0, waitMs: 0 };
const tracing = (() => {
  try {
    return Deno.env.get("FRAMEWORK_PG_TRACE") !== undefined;
  } catch {
    return false;
  }
})();

/**
 * The calls this process's PostgreSQL connections made and how long they waited, since it started.
 *
 * @returns A copy of the counters.
 */
export function bridgeCounts(): BridgeCounts {
  return { ...counts, ...(counts.bySql ? { bySql: { ...counts.bySql } } : {}) };
}

/**
 * Bound values as the worker passes them to the client (64-bit integers as text).
 *
 * @param args The values.
 * @returns The values to post.
 */
export function bind(args: readonly SqlValue[]): unknown[] {
  return args.map((a) => typeof a === "bigint" ? String(a) : a);
}

/** The calls of a bridge (see the module's description). */
export interface Bridge {
  /** Posts a request and waits for its answer (bounded by `timeoutMs`). */
  call(req: PgCall, timeoutMs?: number): PgAnswer;
  /** Sends a statement without waiting (lib/pg/connection.ts `PgConnection.send`). */
  send(tag: string, sql: string, args?: readonly SqlValue[]): void;
  /** Waits for a tag's sent statements and forgets it: the first failure, if any. */
  settle(tag: string): FrameworkError | undefined;
  /** The answer, or the error it carries as the connection throws it. */
  unwrap(answer: PgAnswer, sql: string): Extract<PgAnswer, { error?: undefined }>;
  /** Marks the bridge closed (calls then fail). */
  closed(): void;
}

/**
 * How requests and answers travel between the threads: through the rings in shared memory when JSON
 * carries their values exactly and they fit, else through the port.
 *
 * @param port1 This side's port.
 * @param memory The shared memory.
 * @returns The next answer there (or undefined), and the delivery of a request.
 */
function transport(port1: MessagePort, memory: SharedArrayBuffer) {
  const signal = new Int32Array(memory);
  const requests = ringOver(memory, FLAG.requests, REQUESTS_RING.offset, REQUESTS_RING.capacity);
  const answers = ringOver(memory, FLAG.answers, ANSWERS_RING.offset, ANSWERS_RING.capacity);
  return {
    next(): PgAnswer | undefined {
      const text = answers.shift();
      if (text !== undefined) return JSON.parse(text);
      return receiveMessageOnPort(port1)?.message as PgAnswer | undefined;
    },
    deliver(full: PgCall & { id: number }): void {
      if (
        (full.op !== "query" || full.args.every(jsonExact)) && requests.push(JSON.stringify(full))
      ) {
        Atomics.add(signal, FLAG.asked, 1);
        Atomics.notify(signal, FLAG.asked);
      } else port1.postMessage(full);
    },
  };
}

/**
 * The calling side of a bridge over a worker's port and shared memory.
 *
 * @param port1 This side's port.
 * @param memory The shared memory (lib/pg/protocol.ts `FLAG`, `SHARED_BYTES`).
 * @param where The database, for messages.
 * @param answerTimeoutMs How long a call waits by default.
 * @returns The bridge.
 */
export function createBridge(
  port1: MessagePort,
  memory: SharedArrayBuffer,
  where: string,
  answerTimeoutMs: number,
): Bridge {
  const signal = new Int32Array(memory);
  const { next, deliver } = transport(port1, memory);
  let open = true;
  let nextId = 0;
  /** Why the database last counted as lost (said again while it is down). */
  let lastLoss = "";

  const book = sentStatements((answer) => {
    try {
      unwrap(answer, "(a statement sent without waiting)");
    } catch (err) {
      return err as FrameworkError;
    }
  });
  const took = book.took;
  const post = (req: PgCall): number => {
    if (!open) throw new FrameworkError("internal", `The hive connection to ${where} is closed`);
    // While the database is down, fail at once. Closing, and ending a transaction (which the lost
    // connection took with it: the worker answers that without the database), still go through.
    const needsDatabase = req.op === "query" ||
      (req.op === "exec" && (req.tx === undefined || req.tx === "begin"));
    if (needsDatabase && Atomics.load(signal, FLAG.down) === 1) {
      throw hiveUnavailable(where, `${lastLoss}; reconnecting`);
    }
    const before = nextId;
    const id = nextId = nextId >= 0x7fff_ffff ? 1 : nextId + 1;
    if (tracing && "sql" in req) {
      const key = req.sql.slice(0, 80);
      (counts.bySql ??= {})[key] = (counts.bySql[key] ?? 0) + 1;
    }
    try {
      deliver({ ...req, id });
    } catch (err) {
      nextId = before; // not sent: the worker, which takes requests in order of id, waits for none
      throw err;
    }
    return id;
  };
  /**
   * Waits until `done` says so, taking answers as they come (`mine` is the id whose answer is
   * returned). The flag is lowered before the ring and the port are read, so an answer written
   * after the read wakes the wait (the worker writes, then raises the flag).
   */
  const await_ = (timeoutMs: number, mine: number, done: () => boolean): PgAnswer | undefined => {
    const t0 = performance.now();
    const deadline = Date.now() + timeoutMs;
    try {
      for (;;) {
        if (done()) return undefined;
        Atomics.store(signal, FLAG.answered, 0);
        const answer = next();
        if (answer) {
          if (answer.id === mine) return answer;
          took(answer);
          continue;
        }
        const left = deadline - Date.now();
        if (left <= 0) {
          lastLoss = `no answer in ${timeoutMs / 1000} s`;
          Atomics.store(signal, FLAG.down, 1);
          port1.postMessage({ op: "reset", id: 0 });
          throw hiveUnavailable(where, lastLoss);
        }
        Atomics.wait(signal, FLAG.answered, 0, Math.min(left, 50));
      }
    } finally {
      counts.waitMs += performance.now() - t0;
    }
  };
  const call = (req: PgCall, timeoutMs = answerTimeoutMs): PgAnswer => {
    const id = post(req);
    counts.calls += 1;
    return await_(timeoutMs, id, () => false)!;
  };
  /** Takes the answers already there without waiting. */
  const drain = () => {
    for (let answer = next(); answer; answer = next()) took(answer);
  };
  const send = (tag: string, sql: string, args: readonly SqlValue[] = []) => {
    drain();
    const failed = book.failure(tag);
    if (failed) throw failed;
    const id = post({ op: "query", sql, args: bind(args) });
    counts.sent += 1;
    book.add(id, tag);
  };
  const settle = (tag: string): FrameworkError | undefined => {
    try {
      if (book.unanswered(tag) && !open) {
        throw new FrameworkError("internal", `The hive connection to ${where} is closed`);
      }
      await_(answerTimeoutMs, 0, () => book.unanswered(tag) === 0);
    } catch (err) {
      book.fail(tag, err as FrameworkError);
    }
    return book.forget(tag);
  };
  const unwrap = (answer: PgAnswer, sql: string) => {
    if (answer.error === undefined) return answer;
    if (answer.error.lost) {
      lastLoss = answer.error.message;
      throw hiveUnavailable(where, answer.error.message);
    }
    throw new FrameworkError(
      "internal",
      `The hive's database refused a statement: ${answer.error.message}`,
      { code: answer.error.code, sql: sql.slice(0, 200) },
    );
  };
  return { call, send, settle, unwrap, closed: () => void (open = false) };
}

/**
 * The statements a bridge sent without waiting: each one's tag, how many of a tag are unanswered,
 * and a tag's first failure.
 *
 * @param toError The error an answer carries, or undefined when it went in.
 * @returns The book.
 */
function sentStatements(toError: (answer: PgAnswer) => FrameworkError | undefined) {
  const tags = new Map<number, string>();
  const unanswered = new Map<string, number>();
  const failures = new Map<string, FrameworkError>();
  const fail = (tag: string, err: FrameworkError) =>
    void (failures.has(tag) || failures.set(tag, err));
  return {
    add(id: number, tag: string) {
      tags.set(id, tag);
      unanswered.set(tag, (unanswered.get(tag) ?? 0) + 1);
    },
    /** Records an answer that is not a waited call's (a late one of a call that timed out: none). */
    took(answer: PgAnswer) {
      const tag = tags.get(answer.id);
      if (tag === undefined) return;
      tags.delete(answer.id);
      unanswered.set(tag, unanswered.get(tag)! - 1);
      if (answer.error !== undefined) fail(tag, toError(answer)!);
    },
    unanswered: (tag: string) => unanswered.get(tag) ?? 0,
    failure: (tag: string) => failures.get(tag),
    fail,
    /** Forgets a tag: its first failure, if any. */
    forget(tag: string) {
      const failed = failures.get(tag);
      failures.delete(tag);
      unanswered.delete(tag);
      for (const [id, t] of tags) if (t === tag) tags.delete(id);
      return failed;
    },
  };
}
