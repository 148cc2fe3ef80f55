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

  const call = (req: PgCall, timeoutMs = answerTimeoutMs): PgAnswer => {
    if (!open) throw new FrameworkError("internal", `The hive connection to ${where} is closed`);
    // While the database is down, fail at once. Closing, and ending a transaction (which the lost
    // connection took with it: the worker answers that without the database), still go through.
    const needsDatabase = req.op === "query" ||
      (req.op === "exec" && (req.tx === undefined || req.tx === "begin"));
    if (needsDatabase && Atomics.load(signal, FLAG.down) === 1) {
      throw hiveUnavailable(where, `${lastLoss}; reconnecting`);
    }
    const id = nextId = nextId >= 0x7fff_ffff ? 1 : nextId + 1;
    Atomics.store(signal, FLAG.answered, 0);
    port1.postMessage({ ...req, id });
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const got = receiveMessageOnPort(port1);
      if (got) {
        const answer = got.message as PgAnswer;
        if (answer.id === id) return answer;
        continue; // the late answer of a call that timed out
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
