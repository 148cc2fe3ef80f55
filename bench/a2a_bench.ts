/**
 * The A2A face's overhead: `SendMessage` on `POST /a2a` (JSON-RPC; a message without a context
 * starts a thread, so each is a new thread's first turn) against `POST /run` of the same harness and
 * task on one control plane, one client after another (p50) and eight at once (runs per second),
 * taking turns request by request over 7 rounds (bench/take_turns.ts). Target: within 10 % of
 * `/run`.
 *
 * @module
 */

import { startRunPlane } from "./run_plane.ts";
import { takeTurns } from "./take_turns.ts";
import { runAlone } from "./temp_dirs.ts";

const CLIENTS = 8;

/** Runs the benchmark. */
export async function run(): Promise<void> {
  const plane = await startRunPlane("fw-bench-a2a-", CLIENTS);
  const headers = { ...plane.headers, "content-type": "application/json" };
  let n = 0;
  const post = (path: string, body: () => unknown, done: (doc: unknown) => boolean) => async () => {
    const res = await fetch(plane.base + path, {
      method: "POST",
      headers,
      body: JSON.stringify(body()),
    });
    const doc = await res.json();
    if (res.status !== 200 || !done(doc)) {
      throw new Error(`${path}: ${res.status} ${JSON.stringify(doc).slice(0, 300)}`);
    }
  };
  // deno-lint-ignore no-explicit-any
  type Json = any;
  try {
    await takeTurns({
      "POST /run": post("/run", () => ({ input: "hello" }), (d: Json) => d.data?.output === "done"),
      "A2A SendMessage": post(
        "/a2a",
        () => ({
          jsonrpc: "2.0",
          id: ++n,
          method: "SendMessage",
          params: {
            message: { messageId: `m${n}`, role: "ROLE_USER", parts: [{ text: "hello" }] },
          },
        }),
        (d: Json) => d.result?.task?.status?.state === "TASK_STATE_COMPLETED",
      ),
    }, { clients: CLIENTS, rounds: 7, perRound: 40 });
  } finally {
    await plane.server.stop();
  }
}

if (import.meta.main) await runAlone(run);
