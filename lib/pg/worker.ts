/**
 * The thread that owns a process's PostgreSQL connection (npm `postgres`, one connection, so an
 * explicit transaction's statements all go to it). The calling thread posts one request at a time and
 * sleeps on a shared flag (`Atomics.wait`) until this thread has posted the answer and raised the
 * flag: lib/pg/connection.ts turns that into synchronous calls. A connection that is lost is opened
 * again by the next request.
 *
 * @module
 */

import postgres from "postgres";
import { type MessagePort, workerData } from "node:worker_threads";
import type { PgAnswer, PgRequest } from "./protocol.ts";
import { isConnectionLoss } from "./protocol.ts";

const { url, flag, port, connectTimeoutS } = workerData as {
  url: string;
  flag: SharedArrayBuffer;
  port: MessagePort;
  connectTimeoutS: number;
};
const signal = new Int32Array(flag);

const sql = postgres(url, {
  max: 1,
  connect_timeout: connectTimeoutS,
  idle_timeout: 0,
  fetch_types: false,
  prepare: true,
  onnotice: () => {},
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

async function answer(req: PgRequest): Promise<PgAnswer> {
  try {
    if (req.op === "close") {
      await sql.end({ timeout: 1 });
      return { id: req.id, rows: [], count: 0 };
    }
    if (req.op === "exec") {
      await sql.unsafe(req.sql).simple();
      return { id: req.id, rows: [], count: 0 };
    }
    // deno-lint-ignore no-explicit-any
    const result = await sql.unsafe(req.sql, req.args as any[], { prepare: true });
    return { id: req.id, rows: [...result], count: result.count ?? 0 };
  } catch (err) {
    const e = err as { message?: string; code?: string; errno?: string };
    return {
      id: req.id,
      error: {
        message: e.message ?? String(err),
        code: String(e.code ?? e.errno ?? ""),
        lost: isConnectionLoss(e),
      },
    };
  }
}

port.on("message", async (req: PgRequest) => {
  const out = await answer(req);
  port.postMessage(out);
  Atomics.store(signal, 0, req.id);
  Atomics.notify(signal, 0);
  if (req.op === "close") port.close();
});
