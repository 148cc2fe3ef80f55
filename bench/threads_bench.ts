/**
 * Threads: what it costs to give a run its thread's history, for a thread of 20 turns and one of
 * 1,000 (the history is read from the thread's newest turns in the hive, never from the journals, so
 * both cost about the same), and a turn of a thread with 20 earlier turns beside a one-shot run of the
 * same harness, both through the run service.
 *
 * @module
 */

import { stringify } from "yaml";
import { closeHives, openHive } from "../lib/hive/open.ts";
import { finishRun, insertRun } from "../lib/hive/runs.ts";
import { createThread, lockThread, threadHistory } from "../lib/hive/threads.ts";
import { newRunId } from "../lib/ids.ts";
import { setFrameworkHome } from "../lib/paths.ts";
import { submitToThread } from "../lib/runs/threads.ts";
import { createRunService } from "../lib/runs/service.ts";
import { fmt, fmtRatio, measure, report, summarize } from "./measure.ts";
import { startRunPlane } from "./run_plane.ts";
import { takeTurns } from "./take_turns.ts";
import { benchTempDir, runAlone } from "./temp_dirs.ts";

/** Records a finished turn of a thread straight into the hive, as a run of it would. */
function seedTurn(harness: { id: string; dir: string }, threadId: string, i: number): void {
  const db = openHive();
  const run_id = newRunId();
  const at = new Date().toISOString();
  lockThread(db, threadId, run_id);
  insertRun(db, {
    run_id,
    harness_id: harness.id,
    harness_dir: harness.dir,
    input: `Question ${i}: ${"what about the order? ".repeat(4)}`,
    started_at: at,
    spec_version: "bench",
    trace_path: `${harness.dir}/.framework/traces/${run_id}.jsonl`,
    thread_id: threadId,
  });
  finishRun(db, {
    run_id,
    harness_id: harness.id,
    status: "success",
    output: `Answer ${i}: ${"the order shipped on Monday. ".repeat(6)}`,
    cost_usd: 0,
    turns: 1,
    started_at: at,
    ended_at: at,
    duration_ms: 1,
    spec_version: "bench",
    failure_signature: null,
    thread_id: threadId,
  }, { head_hash: "0".repeat(64), events: 3 });
}

/** Runs the benchmark. */
export async function run(): Promise<void> {
  const home = await benchTempDir("fw-bench-threads-");
  setFrameworkHome(home);
  try {
    const dir = `${home}/talker`;
    await Deno.mkdir(dir, { recursive: true });
    await Deno.writeTextFile(
      `${dir}/harness.yaml`,
      stringify({ id: "talker", model: { provider: "scripted", replies: [{ text: "ok" }] } }),
    );
    const harness = { id: "talker", dir: await Deno.realPath(dir) };
    const db = openHive();
    // Both threads seeded first, then measured in alternating rounds (the machine's drift falls on both).
    const sizes = [20, 1000] as const;
    const threads = sizes.map((size) => {
      const thread = createThread(db, harness, "bench", {});
      for (let i = 0; i < size; i++) seedTurn(harness, thread.thread_id, i);
      return thread.thread_id;
    });
    const rounds: number[][] = sizes.map(() => []);
    const p99s: number[][] = sizes.map(() => []);
    for (let round = 0; round < 5; round++) {
      for (const [i, threadId] of threads.entries()) {
        const t = await measure(1000, () => threadHistory(db, threadId, 20), 100);
        rounds[i]!.push(t.mean_ms);
        p99s[i]!.push(t.p99_ms);
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    sizes.forEach((size, i) => {
      report(`history of a ${size}-turn thread (its last 20, median of 5 rounds)`, {
        mean: fmt(median(rounds[i]!) * 1000, " µs"),
        p99: fmt(median(p99s[i]!) * 1000, " µs"),
      });
    });
    report("history, 1,000 turns vs 20", {
      ratio: `${fmt(median(rounds[1]!) / median(rounds[0]!))}x`,
    });

    // A turn of a 20-turn thread against a one-shot run, through the run service, interleaved.
    const runs = createRunService();
    const thread = createThread(db, harness, "bench", {});
    for (let i = 0; i < 20; i++) seedTurn(harness, thread.thread_id, i);
    const oneShot = async () => {
      await (await runs.submit(harness.dir, { input: "Where is my order?" })).result;
    };
    const turn = async () => {
      const sent = await submitToThread(db, runs, harness.dir, harness, thread.thread_id, {
        input: "Where is my order?",
      }, { viewer: null });
      if (sent.kind === "run") await sent.submission.result;
    };
    // Taking turns request by request, the order alternating, so the drift of the shared machine
    // (its disk's flushes above all) falls on both alike; p50 beside the mean. The disk's speed moves
    // a run's time by a third between minutes here: 600 pairs, so the p50s hold still.
    const PAIRS = 600;
    for (let i = 0; i < 10; i++) await oneShot(), await turn();
    const times: { one: number[]; thread: number[] } = { one: [], thread: [] };
    const timed = async (fn: () => Promise<void>, into: number[]) => {
      const t0 = performance.now();
      await fn();
      into.push(performance.now() - t0);
    };
    for (let i = 0; i < PAIRS; i++) {
      if (i % 2) await timed(oneShot, times.one), await timed(turn, times.thread);
      else await timed(turn, times.thread), await timed(oneShot, times.one);
    }
    const one = summarize(times.one), inThread = summarize(times.thread);
    report(`one-shot run (${PAIRS}, taking turns)`, {
      p50: fmt(one.p50_ms, " ms"),
      mean: fmt(one.mean_ms, " ms"),
    });
    report("turn of a thread with 20 earlier turns", {
      p50: fmt(inThread.p50_ms, " ms"),
      mean: fmt(inThread.mean_ms, " ms"),
      "vs one-shot": `${fmtRatio(inThread.p50_ms / one.p50_ms)} p50, ${
        fmtRatio(inThread.mean_ms / one.mean_ms)
      } mean`,
    });
    await runs.close();
  } finally {
    closeHives();
    setFrameworkHome(undefined);
  }
  await servedTurns();
}

/**
 * A thread turn as a deployed harness serves it, beside `POST /run` on the same control plane: the
 * run benchmarks' task (two model calls and a tool call), a thread given 20 turns first (so every
 * turn measured carries 20 earlier ones), one client after another (p50) and eight at once (runs per
 * second, eight clients each in a loop, and in batches of eight; each client its own thread: a
 * thread runs one turn at a time), taking turns request by request as the other faces do
 * (bench/take_turns.ts). Target: within 10 % of `/run`.
 */
async function servedTurns(): Promise<void> {
  const CLIENTS = 8;
  const plane = await startRunPlane("fw-bench-thread-turns-", CLIENTS);
  const headers = { ...plane.headers, "content-type": "application/json" };
  const post = async (path: string, body: unknown) => {
    const res = await fetch(plane.base + path, {
      method: "POST",
      headers,
      body: JSON.stringify(body),
    });
    // deno-lint-ignore no-explicit-any
    const doc: any = await res.json();
    if (res.status >= 300 || !doc.ok) {
      throw new Error(`${path}: ${res.status} ${JSON.stringify(doc).slice(0, 300)}`);
    }
    return doc.data;
  };
  try {
    const threads: string[] = [];
    for (let i = 0; i < CLIENTS; i++) {
      const { thread_id } = await post("/threads", {});
      for (let turn = 0; turn < 20; turn++) {
        await post(`/threads/${thread_id}/run`, { input: "hello" });
      }
      threads.push(thread_id);
    }
    // Each client its own thread (a thread runs one turn at a time).
    await takeTurns({
      "POST /run": async () => {
        if ((await post("/run", { input: "hello" })).output !== "done") throw new Error("/run");
      },
      "thread turn (20 earlier)": async (client) => {
        const thread = threads[client]!;
        if ((await post(`/threads/${thread}/run`, { input: "hello" })).output !== "done") {
          throw new Error("thread turn");
        }
      },
    }, { clients: CLIENTS, rounds: 7, perRound: 40 });
  } finally {
    await plane.server.stop();
  }
}

if (import.meta.main) await runAlone(run);
