/**
 * The messages between a PostgreSQL connection (lib/pg/connection.ts) and the thread that owns the
 * client (lib/pg/worker.ts), the shared flags they wait on, and which client errors mean the database
 * was lost rather than that a statement failed.
 *
 * @module
 */

/** What a script does to the explicit transaction (the worker keeps track, see lib/pg/worker.ts). */
export type TxStep = "begin" | "commit" | "rollback";

/** One call: a statement with `$n` parameters, a script of statements, or closing. */
export type PgCall =
  | { op: "query"; sql: string; args: unknown[] }
  | { op: "exec"; sql: string; tx?: TxStep }
  | { op: "close" };

/**
 * A call with its id (the answer carries it back), or `reset`: the caller gave up waiting, so the
 * worker drops its client (failing what it still holds) and opens a new one.
 */
export type PgRequest = (PgCall & { id: number }) | { op: "reset"; id: number };

/** The answer to a request: its rows and count of changed rows, or the error. */
export type PgAnswer =
  | { id: number; rows: Record<string, unknown>[]; count: number; error?: undefined }
  | { id: number; error: { message: string; code: string; lost: boolean } };

/** The shared flags' slots (an `Int32Array` over a `SharedArrayBuffer` of {@link FLAG_BYTES}). */
export const FLAG = {
  /** The id of the last request answered: the caller sleeps on it. */
  answered: 0,
  /** 1 while the database is out of reach: calls fail at once, the worker probes until it answers. */
  down: 1,
} as const;

/** The size of the shared flags. */
export const FLAG_BYTES = 8;

/** Connection failures of the client and the server's "going away" SQLSTATEs (class 08, 57P0x). */
const LOSS_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "EHOSTUNREACH",
  "ETIMEDOUT",
  "EPIPE",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
  "57P01",
  "57P02",
  "57P03",
]);

/**
 * Whether a client error means the database is out of reach (the statement may be retried once it is
 * back), as opposed to a statement the database refused.
 *
 * @param e The error's `code` / `errno`.
 * @returns True for a lost or refused connection.
 */
export function isConnectionLoss(e: { code?: string; errno?: string }): boolean {
  const code = String(e.code ?? e.errno ?? "");
  return LOSS_CODES.has(code) || code.startsWith("08");
}
