/**
 * The thread that owns a process's PostgreSQL connection (npm `postgres`, one connection, so an
 * explicit transaction's statements all go to it). The calling thread writes its requests into a ring
 * in shared memory (lib/pg/ring.ts; by the message port when JSON would not carry their values
 * exactly), bumps a counter this thread sleeps on (`Atomics.waitAsync`), and sleeps on a shared flag
 * (`Atomics.wait`) until this thread has written the answer (the answers' ring, or the port likewise)
 * and raised the flag: lib/pg/connection.ts turns that into synchronous calls. Requests are taken in
 * order of id whichever way they came, so they reach the database in the order they were made.
 *
 * A lost database never leaves the caller waiting: a statement that finds the connection lost is
 * answered at once (the client's own growing reconnect delay is turned off), the shared `down` flag
 * is raised so the caller's next statements fail at once too, and this thread tries the database
 * every {@link PROBE_MS} until it answers, then lowers the flag. A transaction whose connection was
 * lost is never continued on the next one: its statements fail until the caller rolls it back.
 *
 * @module
 */

import postgres from "postgres";
import { type MessagePort, workerData } from "node:worker_threads";
import {
  ANSWERS_RING,
  FLAG,
  isConnectionLoss,
  jsonExact,
  type PgAnswer,
  type PgRequest,
  REQUESTS_RING,
} from "./protocol.ts";
import { ringOver } from "./ring.ts";

/** How often a lost database is tried again. */
const PROBE_MS = 250;

const { url, flag, port, connectTimeoutS } = workerData as {
  url: string;
  flag: SharedArrayBuffer;
  port: MessagePort;
  connectTimeoutS: number;
};
const signal = new Int32Array(flag);

/** Bumped each time the connection closes (a transaction does not outlive its connection). */
let epoch = 0;

/** The client in use: each one is numbered, so a client dropped earlier bumps no epoch. */
let generation = 0;

function client() {
  const mine = ++generation;
  return postgres(url, {
    max: 1,
    connect_timeout: connectTimeoutS,
    idle_timeout: 0,
    // Never closed on purpose (a transaction must not lose its connection between statements), and
    // reopened at once when lost: the probe below paces the attempts, not the client's backoff.
    max_lifetime: 0,
    backoff: () => 0,
    fetch_types: false,
    prepare: true,
    onnotice: () => {},
    onclose: () => void (mine === generation && (epoch += 1)),
    // Counts and 64-bit columns come back as numbers, as SQLite gives them.
    types: {
      bigint: {
        to: 20,
        from: [20],
        parse: (x: string) => Number(x),
        serialize: (x: number | bigint) => String(x),
      },
      numeric: {
        to: 1700,
        from: [1700],
        parse: (x: string) => Number(x),
        serialize: (x: number) => String(x),
      },
    },
  });
}

let sql = client();

/** The statements sent and not answered yet (cancelled on the server when the caller gives up). */
const inflight = new Set<{ cancel(): unknown }>();

/**
 * Drops the client for a new one. A client whose connection failed under a statement is never used
 * again: npm `postgres` 3.4 keeps that statement as the current one (porsager/postgres#1142), so the
 * statements it is given after reconnecting wait behind it for ever. Statements still held are
 * cancelled on the server and fail (their answers have nobody waiting).
 */
function renewClient(): void {
  const old = sql;
  sql = client();
  epoch += 1;
  for (const q of inflight) void Promise.resolve(q.cancel()).catch(() => {});
  inflight.clear();
  void old.end({ timeout: 0 }).catch(() => {});
}

/** The open transaction: the epoch (connection) it began in. */
let tx: number | undefined;

let probing = false;

/** Raises the `down` flag and tries the database (on a new client) until it answers. */
function markDown(): void {
  Atomics.store(signal, FLAG.down, 1);
  renewClient();
  if (probing) return;
  probing = true;
  const probe = async () => {
    try {
      await sql.unsafe("SELECT 1").simple();
      probing = false;
      Atomics.store(signal, FLAG.down, 0);
    } catch {
      renewClient();
      setTimeout(probe, PROBE_MS);
    }
  };
  setTimeout(probe, PROBE_MS);
}

const lostInTransaction = {
  message: "the connection was lost inside a transaction, which the database rolled back",
  code: "08006",
  lost: true,
};

async function run(req: Exclude<PgRequest, { op: "reset" }>): Promise<PgAnswer> {
  const done = { id: req.id, rows: [], count: 0 };
  if (req.op === "close") {
    await sql.end({ timeout: 1 });
    return done;
  }
  const step = req.op === "exec" ? req.tx : undefined;
  if (step === "begin") tx = epoch;
  else if (tx !== undefined && tx !== epoch) {
    // The transaction's connection is gone, and the database rolled it back: its statements and
    // its commit fail (on a new connection they would each commit alone); rolling back is done.
    if (step) tx = undefined;
    return step === "rollback" ? done : { id: req.id, error: lostInTransaction };
  } else if (step) tx = undefined;
  const pending = req.op === "exec"
    ? sql.unsafe(req.sql).simple()
    // deno-lint-ignore no-explicit-any
    : sql.unsafe(req.sql, req.args as any[], { prepare: true });
  inflight.add(pending);
  try {
    const result = await pending;
    return req.op === "exec" ? done : { id: req.id, rows: [...result], count: result.count ?? 0 };
  } catch (err) {
    // A rollback whose connection is lost is done: the database rolls back what it loses.
    if (step !== "rollback" || !isConnectionLoss(err as { code?: string })) throw err;
    markDown();
    return done;
  } finally {
    inflight.delete(pending);
  }
}

async function answer(req: Exclude<PgRequest, { op: "reset" }>): Promise<PgAnswer> {
  try {
    return await run(req);
  } catch (err) {
    const e = err as { message?: string; code?: string; errno?: string };
    const lost = isConnectionLoss(e);
    if (lost) markDown();
    return {
      id: req.id,
      error: { message: e.message ?? String(err), code: String(e.code ?? e.errno ?? ""), lost },
    };
  }
}

const requests = ringOver(flag, FLAG.requests, REQUESTS_RING.offset, REQUESTS_RING.capacity);
const answers = ringOver(flag, FLAG.answers, ANSWERS_RING.offset, ANSWERS_RING.capacity);

/** Whether JSON carries every value of an answer exactly (else it goes by the port). */
function exact(out: PgAnswer): boolean {
  if (out.error !== undefined) return true;
  for (const row of out.rows) {
    for (const k in row) if (!jsonExact(row[k])) return false;
  }
  return true;
}

async function respond(req: Exclude<PgRequest, { op: "reset" }>): Promise<void> {
  const out = await answer(req);
  if (!exact(out) || !answers.push(JSON.stringify(out))) port.postMessage(out);
  Atomics.store(signal, FLAG.answered, req.id);
  Atomics.notify(signal, FLAG.answered);
  if (req.op === "close") {
    stopped = true;
    port.close();
  }
}

/** The next request id to start, and the requests that came before their turn. */
let turn = 1;
const early = new Map<number, Exclude<PgRequest, { op: "reset" }>>();
let stopped = false;

/** Takes a request from the ring or the port; starts every request whose turn it is, in order. */
function accept(req: PgRequest): void {
  if (req.op === "reset") {
    // The caller gave up on an answer: the database is tried afresh.
    markDown();
    return;
  }
  early.set(req.id, req);
  for (let next = early.get(turn); next; next = early.get(turn)) {
    early.delete(turn);
    turn = turn >= 0x7fff_ffff ? 1 : turn + 1;
    void respond(next);
  }
}

port.on("message", accept);

(async () => {
  while (!stopped) {
    const seen = Atomics.load(signal, FLAG.asked);
    for (let text = requests.shift(); text !== undefined; text = requests.shift()) {
      accept(JSON.parse(text));
    }
    const wait = Atomics.waitAsync(signal, FLAG.asked, seen);
    if (wait.async) await wait.value;
  }
})();
