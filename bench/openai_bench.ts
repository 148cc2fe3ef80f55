/**
 * The OpenAI-compatible endpoints' overhead: `POST /v1/chat/completions` against `POST /run` for the
 * same harness on one control plane (its own process, request log on), one client after another and
 * eight at once, measured side by side in interleaved rounds (medians of 7, the order alternating
 * each round, so the machine's drift falls on both). `POST /v1/responses`, which also makes a thread
 * per conversation, is printed beside them. Target: chat completions within 10 % of `/run`.
 *
 * @module
 */

import { stringify } from "yaml";
import { generateKey } from "../lib/keys/key_files.ts";
import { authorizeKey } from "../lib/keys/key_store.ts";
import { signToken } from "../lib/keys/tokens.ts";
import { fmt, measure, report } from "./measure.ts";
import { frameworkFlags, startServer } from "./server_process.ts";
import { benchTempDir, runAlone } from "./temp_dirs.ts";

const ROUNDS = 7;
const PER_ROUND = 40;
const CLIENTS = 8;

/** Runs the benchmark. */
export async function run(): Promise<void> {
  const home = await benchTempDir("fw-bench-oai-");
  const dir = `${home}/bench-oai`;
  await Deno.mkdir(dir);
  await Deno.writeTextFile(
    `${dir}/harness.yaml`,
    stringify({
      id: "bench-oai",
      instructions: "Answer about orders.",
      model: { provider: "scripted", replies: [{ text: "Your order shipped on Monday." }] },
    }),
  );
  const key = await generateKey("bench", `${home}/keys`);
  await authorizeKey(`${dir}/.framework/authorized_keys.json`, "bench", key.public_key, ["run"]);
  const { token } = await signToken({ keyPath: key.path, scopes: ["run"], ttl: 3600 });
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  // Slots for the concurrent clients, so neither endpoint waits in the queue.
  const plane = await startServer("plane_server.ts", [dir, String(CLIENTS), "16"], home, [
    ...await frameworkFlags(),
  ]);
  try {
    const base = `http://127.0.0.1:${plane.port}`;
    const post = (path: string, body: unknown) => async () => {
      const res = await fetch(base + path, { method: "POST", headers, body: JSON.stringify(body) });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
    };
    const question = "Where is my order?";
    const variants = {
      "POST /run": post("/run", { input: question }),
      "POST /v1/chat/completions": post("/v1/chat/completions", {
        model: "bench-oai",
        messages: [{ role: "user", content: question }],
      }),
      "POST /v1/responses": post("/v1/responses", { model: "bench-oai", input: question }),
    };
    const names = Object.keys(variants) as (keyof typeof variants)[];
    const concurrently = (fn: () => Promise<void>) => async () => {
      await Promise.all(Array.from({ length: CLIENTS }, fn));
    };
    const sequential: Record<string, number[]> = {};
    const parallel: Record<string, number[]> = {};
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 ? [...names].reverse() : names;
      for (const name of order) {
        const one = await measure(PER_ROUND, variants[name], 5);
        (sequential[name] ??= []).push(one.p50_ms);
        const eight = await measure(PER_ROUND / 4, concurrently(variants[name]), 2);
        (parallel[name] ??= []).push((CLIENTS * 1000) / eight.mean_ms);
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const runMs = median(sequential["POST /run"]!);
    const runRps = median(parallel["POST /run"]!);
    for (const name of names) {
      const ms = median(sequential[name]!);
      const rps = median(parallel[name]!);
      report(name, {
        "p50, 1 client": fmt(ms, " ms"),
        [`runs/s, ${CLIENTS} clients`]: fmt(rps),
        ...(name === "POST /run" ? {} : {
          "vs /run": `${fmt(ms / runMs)}x latency, ${fmt(rps / runRps)}x throughput`,
        }),
      });
    }
  } finally {
    await plane.stop();
  }
}

if (import.meta.main) await runAlone(run);
