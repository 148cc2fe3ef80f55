/**
 * A synchronous PostgreSQL connection with the calls of `node:sqlite`'s `DatabaseSync` (`prepare` →
 * `get`/`all`/`run`, `exec`, `close`), so the hive's code and its callers stay synchronous whichever
 * store they have. A worker thread owns the client (lib/pg/worker.ts); each call writes its request
 * into shared memory and sleeps on a shared flag until the answer is there (`Atomics.wait`, the
 * technique of npm `synckit`; lib/pg/bridge.ts, lib/pg/ring.ts). Statements are translated from SQLite's dialect once per text (lib/pg/dialect.ts).
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

import { MessageChannel, Worker } from "node:worker_threads";
import { FrameworkError } from "../errors.ts";
import type { SqlChanges, SqlConnection, SqlStatement, SqlValue } from "../sqlite/statements.ts";
import { toPostgres } from "./dialect.ts";
import { SHARED_BYTES, type TxStep } from "./protocol.ts";
import { bind, createBridge } from "./bridge.ts";

export { type BridgeCounts, bridgeCounts } from "./bridge.ts";

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
  const flag = new SharedArrayBuffer(SHARED_BYTES);
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(new URL("./worker.ts", import.meta.url), {
    workerData: { url, flag, port: port2, connectTimeoutS: options.connectTimeoutS ?? 5 },
    transferList: [port2],
  });
  worker.unref();
  const translated = new Map<string, string>();
  const { call, send, settle, unwrap, closed } = createBridge(
    port1,
    flag,
    where,
    answerTimeoutMs,
  );
  let open = true;
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
      closed();
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
