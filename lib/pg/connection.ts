/**
 * A synchronous PostgreSQL connection with the calls of `node:sqlite`'s `DatabaseSync` (`prepare` →
 * `get`/`all`/`run`, `exec`, `close`), so the hive's code and its callers stay synchronous whichever
 * store they have. A worker thread owns the client (lib/pg/worker.ts); each call posts its request
 * and sleeps on a shared flag until the answer is there (`Atomics.wait`, the technique of npm
 * `synckit`). Statements are translated from SQLite's dialect once per text (lib/pg/dialect.ts).
 * `BEGIN IMMEDIATE` takes a transaction-scoped advisory lock on the hive, which serializes explicit
 * transactions across processes as SQLite's write lock does; single statements rely on row locks.
 *
 * Every call's wait is bounded: a call fails with `hive_unavailable` (503) when the database is lost
 * (answered at once by the worker), when it gave no answer within the answer timeout (the worker then
 * drops its client and opens a new one), and, while the worker has not reached the database again
 * since, at once without waiting — so a process whose database is gone keeps answering its requests,
 * and takes the database up again by itself when it is back.
 *
 * @module
 */

import { MessageChannel, receiveMessageOnPort, Worker } from "node:worker_threads";
import { FrameworkError, hiveUnavailable } from "../errors.ts";
import type { SqlChanges, SqlConnection, SqlStatement, SqlValue } from "../sqlite/statements.ts";
import { toPostgres } from "./dialect.ts";
import { FLAG, FLAG_BYTES, type PgAnswer, type PgCall, type TxStep } from "./protocol.ts";

/** How long one call waits for its answer, by default, before the database counts as unavailable. */
const ANSWER_TIMEOUT_MS = 30_000;

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

/** The advisory lock every explicit transaction takes (SQLite's `BEGIN IMMEDIATE`). */
export const TRANSACTION_LOCK = 0x6869_7665; // "hive"

/** A PostgreSQL connection that answers synchronously. */
export interface PgConnection extends SqlConnection {
  /** `postgres`. */
  readonly store: "postgres";
  /** The URL without its password (for messages). */
  readonly where: string;
  /** Runs a statement with `$n` parameters as written (no translation). */
  query(
    sql: string,
    args?: readonly SqlValue[],
  ): { rows: Record<string, unknown>[]; count: number };
  /**
   * Sends a statement with `$n` parameters without waiting for its answer: it goes down the same
   * connection in order, so the next waited call's answer comes after it (one round trip for both).
   * Its failure is kept under `tag` for {@link PgConnection.settle}; a later `send` of the same tag
   * throws it.
   *
   * @throws FrameworkError (503) at once while the database is down, or the tag's earlier failure.
   */
  send(tag: string, sql: string, args?: readonly SqlValue[]): void;
  /**
   * Waits for the statements sent under `tag` (usually answered already, behind a later waited call)
   * and forgets the tag.
   *
   * @returns The first of them that failed, as the error a waited call would have thrown, or
   * undefined when all went in.
   */
  settle(tag: string): FrameworkError | undefined;
}

/**
 * A database URL fit for messages and logs: its password left out.
 *
 * @example
 * ```ts
 * redactUrl("postgres://app:s3cret@db:5432/hive"); // "postgres://app@db:5432/hive"
 * ```
 * @param url The URL.
 * @returns The URL without a password.
 */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    u.password = "";
    u.search = "";
    return u.toString();
  } catch {
    return "(a database URL that does not parse)";
  }
}

/**
 * Whether a hive location is a PostgreSQL URL.
 *
 * @param location A URL or a file path.
 * @returns True for `postgres://` and `postgresql://`.
 */
export function isPostgresUrl(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

/** What a script does to the explicit transaction, when it is only `BEGIN`, `COMMIT` or `ROLLBACK`. */
function txStep(sql: string): TxStep | undefined {
  const word = /^\s*(BEGIN(?:\s+IMMEDIATE)?|COMMIT|END|ROLLBACK)\s*;?\s*$/i.exec(sql)?.[1]
    ?.toUpperCase();
  if (word === undefined) return undefined;
  return word.startsWith("BEGIN") ? "begin" : word === "ROLLBACK" ? "rollback" : "commit";
}

function bind(args: readonly SqlValue[]): unknown[] {
  return args.map((a) => typeof a === "bigint" ? String(a) : a);
}

/**
 * Opens a connection and checks that the database answers.
 *
 * @example
 * ```ts
 * const db = openPostgres("postgres://app@127.0.0.1:5432/hive");
 * db.prepare("SELECT count(*) AS n FROM runs WHERE status = ?").get("success"); // { n: 3 }
 * ```
 * @param url `postgres://user:password@host:port/database`.
 * @param options How long a connection may take to open, in seconds (default 5), and how long a
 * call waits for its answer, in milliseconds (default 30,000).
 * @returns The connection.
 * @throws FrameworkError (503, `hive_unavailable`) naming the database when it does not answer.
 */
export function openPostgres(
  url: string,
  options: { connectTimeoutS?: number; answerTimeoutMs?: number } = {},
): PgConnection {
  const where = redactUrl(url);
  const answerTimeoutMs = options.answerTimeoutMs ?? ANSWER_TIMEOUT_MS;
  const flag = new SharedArrayBuffer(FLAG_BYTES);
  const signal = new Int32Array(flag);
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(new URL("./worker.ts", import.meta.url), {
    workerData: { url, flag, port: port2, connectTimeoutS: options.connectTimeoutS ?? 5 },
    transferList: [port2],
  });
  worker.unref();
  let open = true;
  let nextId = 0;
  const translated = new Map<string, string>();
  /** Why the database last counted as lost (said again while it is down). */
  let lastLoss = "";

  /** Statements sent without waiting: their ids and tags, how many of each tag are unanswered. */
  const sent = new Map<number, string>();
  const unanswered = new Map<string, number>();
  const failures = new Map<string, FrameworkError>();
  /** Records the answer of a sent statement (a waited call's answer is returned instead). */
  const took = (answer: PgAnswer): void => {
    const tag = sent.get(answer.id);
    if (tag === undefined) return; // the late answer of a call that timed out
    sent.delete(answer.id);
    unanswered.set(tag, unanswered.get(tag)! - 1);
    if (answer.error !== undefined && !failures.has(tag)) {
      try {
        unwrap(answer, "(a statement sent without waiting)");
      } catch (err) {
        failures.set(tag, err as FrameworkError);
      }
    }
  };
  const post = (req: PgCall): number => {
    if (!open) throw new FrameworkError("internal", `The hive connection to ${where} is closed`);
    // While the database is down, fail at once. Closing, and ending a transaction (which the lost
    // connection took with it: the worker answers that without the database), still go through.
    const needsDatabase = req.op === "query" ||
      (req.op === "exec" && (req.tx === undefined || req.tx === "begin"));
    if (needsDatabase && Atomics.load(signal, FLAG.down) === 1) {
      throw hiveUnavailable(where, `${lastLoss}; reconnecting`);
    }
    const id = nextId = nextId >= 0x7fff_ffff ? 1 : nextId + 1;
    if (tracing && "sql" in req) {
      const key = req.sql.slice(0, 80);
      (counts.bySql ??= {})[key] = (counts.bySql[key] ?? 0) + 1;
    }
    port1.postMessage({ ...req, id });
    return id;
  };
  /**
   * Waits until `done` says so, taking answers as they come (`mine` is the id whose answer is
   * returned). The flag is lowered before the port is read, so an answer posted after the read
   * wakes the wait (the worker posts, then raises the flag).
   */
  const await_ = (timeoutMs: number, mine: number, done: () => boolean): PgAnswer | undefined => {
    const t0 = performance.now();
    const deadline = Date.now() + timeoutMs;
    try {
      for (;;) {
        if (done()) return undefined;
        Atomics.store(signal, FLAG.answered, 0);
        const got = receiveMessageOnPort(port1);
        if (got) {
          const answer = got.message as PgAnswer;
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
    for (let got = receiveMessageOnPort(port1); got; got = receiveMessageOnPort(port1)) {
      took(got.message as PgAnswer);
    }
  };
  const send = (tag: string, sql: string, args: readonly SqlValue[] = []) => {
    drain();
    const failed = failures.get(tag);
    if (failed) throw failed;
    const id = post({ op: "query", sql, args: bind(args) });
    counts.sent += 1;
    sent.set(id, tag);
    unanswered.set(tag, (unanswered.get(tag) ?? 0) + 1);
  };
  const settle = (tag: string): FrameworkError | undefined => {
    try {
      if (unanswered.get(tag) && !open) {
        throw new FrameworkError("internal", `The hive connection to ${where} is closed`);
      }
      if (unanswered.has(tag)) await_(answerTimeoutMs, 0, () => unanswered.get(tag) === 0);
    } catch (err) {
      if (!failures.has(tag)) failures.set(tag, err as FrameworkError);
    }
    const failed = failures.get(tag);
    failures.delete(tag);
    unanswered.delete(tag);
    for (const [id, t] of sent) if (t === tag) sent.delete(id);
    return failed;
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
  const query = (sql: string, args: readonly SqlValue[] = []) => {
    const a = unwrap(call({ op: "query", sql, args: bind(args) }), sql);
    return { rows: a.rows!, count: a.count! };
  };
  const exec = (sql: string) => {
    const tx = txStep(sql);
    const text = tx === "begin" ? `BEGIN; SELECT pg_advisory_xact_lock(${TRANSACTION_LOCK})` : sql;
    unwrap(call({ op: "exec", sql: text, ...(tx ? { tx } : {}) }), text);
  };

  const db: PgConnection = {
    store: "postgres",
    where,
    get isOpen() {
      return open;
    },
    query,
    exec,
    send,
    settle,
    prepare(sql: string): SqlStatement {
      let text = translated.get(sql);
      if (text === undefined) {
        text = toPostgres(sql);
        translated.set(sql, text);
      }
      const pg = text;
      return {
        get: (...args) => query(pg, args).rows[0],
        all: (...args) => query(pg, args).rows,
        run: (...args): SqlChanges => ({ changes: query(pg, args).count, lastInsertRowid: 0 }),
      };
    },
    close() {
      if (!open) return;
      try {
        call({ op: "close" });
      } catch { /* closing anyway */ }
      open = false;
      port1.close();
      void worker.terminate();
    },
  };
  try {
    // The first answer waits for the worker to start as well.
    unwrap(
      call(
        { op: "query", sql: "SELECT 1", args: [] },
        Math.max(answerTimeoutMs, ANSWER_TIMEOUT_MS),
      ),
      "SELECT 1",
    );
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}
