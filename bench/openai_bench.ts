/**
 * The OpenAI-compatible endpoints' overhead: `POST /v1/chat/completions` against `POST /run` for the
 * same harness on one control plane (its own process, request log on), one client after another
 * (p50 latency) and eight at once (runs per second, from the median time of a batch of eight),
 * measured side by side: the variants take turns request by request (batch by batch), their order
 * alternating, over 7 rounds, so the drift of a shared machine falls on all of them alike.
 * `POST /v1/responses`, which also makes a thread per conversation, is printed beside them. Target:
 * chat completions within 10 % of `/run`. And the translation alone, in process: a chat request read
 * into a run's request and its result made into a completion, beside `/run`'s body read by its
 * schema.
 *
 * @module
 */

import { stringify } from "yaml";
import { generateKey } from "../lib/keys/key_files.ts";
import { authorizeKey } from "../lib/keys/key_store.ts";
import { signToken } from "../lib/keys/tokens.ts";
import { chatConversation } from "../lib/openai/messages.ts";
import { chatCompletion } from "../lib/openai/objects.ts";
import { CHAT_COMPLETION_REQUEST } from "../lib/openai/requests.ts";
import { readRequest, RUN_REQUEST } from "../lib/requests.ts";
import { runTokens } from "../lib/run_tally.ts";
import type { RunResult } from "../lib/run_types.ts";
import { fmt, measure, report } from "./measure.ts";
import { frameworkFlags, startServer } from "./server_process.ts";
import { takeTurns } from "./take_turns.ts";
import { benchTempDir, runAlone } from "./temp_dirs.ts";

const ROUNDS = 7;
const PER_ROUND = 40;
const CLIENTS = 8;

/** The translation alone: what `/v1/chat/completions` does beyond `/run`, in process. */
async function translation(): Promise<void> {
  const body = () => ({
    model: "bench-oai",
    messages: [
      { role: "system", content: "Answer briefly." },
      { role: "user", content: "Hi" },
      { role: "assistant", content: "Hello, how can I help?" },
      { role: "user", content: "Where is my order?" },
    ],
    temperature: 0.2,
  });
  const result: RunResult = {
    run_id: "run_01JBENCH0000000000000000000",
    harness_id: "bench-oai",
    status: "success",
    output: "Your order shipped on Monday.",
    cost_usd: 0,
    turns: 1,
    started_at: "2026-01-01T00:00:00.000Z",
    ended_at: "2026-01-01T00:00:00.004Z",
    duration_ms: 4,
    spec_version: "v",
    failure_signature: null,
  };
  const events = [
    { type: "run_started", payload: {} },
    { type: "model_call", payload: { turn: 1 } },
    { type: "model_response", payload: { usage: { input_tokens: 40, output_tokens: 8 } } },
    { type: "run_finished", payload: {} },
  ];
  const chat = await measure(20_000, () => {
    const request = readRequest(CHAT_COMPLETION_REQUEST, body());
    chatConversation(request.messages);
    JSON.stringify(chatCompletion({ result, tokens: runTokens(events) }, 0));
  });
  const plain = await measure(20_000, () => {
    readRequest(RUN_REQUEST, { input: "Where is my order?" });
    JSON.stringify({ ok: true, data: result });
  });
  report("translation alone, in process", {
    chat: fmt(chat.mean_ms * 1000, " µs"),
    "/run": fmt(plain.mean_ms * 1000, " µs"),
    added: fmt((chat.mean_ms - plain.mean_ms) * 1000, " µs per request"),
  });
}

/** Runs the benchmark. */
export async function run(): Promise<void> {
  await translation();
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
    await takeTurns(variants, { clients: CLIENTS, rounds: ROUNDS, perRound: PER_ROUND });
  } finally {
    await plane.stop();
  }
}

if (import.meta.main) await runAlone(run);
