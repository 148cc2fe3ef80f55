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

/**
 * The shared memory's 32-bit slots (an `Int32Array` over a `SharedArrayBuffer` of
 * {@link SHARED_BYTES}): the flags, then the positions of the two rings (lib/pg/ring.ts) that carry
 * requests and answers whose values JSON keeps exactly; the others go by the message port.
 */
export const FLAG = {
  /** The id of the last request answered: the caller sleeps on it. */
  answered: 0,
  /** 1 while the database is out of reach: calls fail at once, the worker probes until it answers. */
  down: 1,
  /** Bumped by the caller after each request it writes: the worker sleeps on it (`waitAsync`). */
  asked: 2,
  /** The requests' ring's two positions. */
  requests: 4,
  /** The answers' ring's two positions. */
  answers: 6,
} as const;

/** Where the requests' ring's bytes start, and its size (a journal batch fits). */
export const REQUESTS_RING = { offset: 64, capacity: 256 * 1024 } as const;
/** Where the answers' ring's bytes start, and its size. */
export const ANSWERS_RING = {
  offset: REQUESTS_RING.offset + REQUESTS_RING.capacity,
  capacity: 1024 * 1024,
} as const;

/** The size of the shared memory. */
export const SHARED_BYTES = ANSWERS_RING.offset + ANSWERS_RING.capacity;

/**
 * Whether JSON carries a value exactly (text, finite numbers, booleans, null): a request whose
 * values all are goes through the ring, the others by the message port (structured clone).
 *
 * @param v The value.
 * @returns True when `JSON.parse(JSON.stringify(v))` gives it back.
 */
export function jsonExact(v: unknown): boolean {
  return v === null || typeof v === "string" || typeof v === "boolean" ||
    (typeof v === "number" && Number.isFinite(v) && !Object.is(v, -0));
}

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
