/**
 * The five run statuses, each produced by a test harness and checked end to end: the result, the
 * journal (integrity, event order, `run_finished` equal to the result) and the hive row.
 */

import assert from "node:assert/strict";
import { openHive } from "../../lib/hive/open.ts";
import { getRun } from "../../lib/hive/runs.ts";
import type { JournalEvent } from "../../lib/journal/event.ts";
import { parseJournal, verifyJournal } from "../../lib/journal/verify.ts";
import { type RunHandle } from "../../lib/runner/run_handle.ts";
import { startRun } from "../../lib/runs/service.ts";
import type { RunResult } from "../../lib/run_types.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir, tempHome } from "../helpers/temp.ts";
import { byId } from "../helpers/hive.ts";

const PRICING = { input_per_mtok: 3, output_per_mtok: 15 };

/** The cost of some usages at PRICING, rounded as results are. */
function costOf(...usages: [number, number][]): number {
  const usd = usages.reduce(
    (sum, [i, o]) => sum + (i * PRICING.input_per_mtok + o * PRICING.output_per_mtok) / 1e6,
    0,
  );
  return Math.round(usd * 1e9) / 1e9;
}

/** Awaits a run and checks that its result, its journal and its hive row agree. */
async function finish(run: RunHandle): Promise<{ result: RunResult; events: JournalEvent[] }> {
  const result = await run.result;
  assert.equal(result.run_id, run.run_id);
  const bytes = await Deno.readFile(run.trace_path);
  const integrity = verifyJournal(bytes);
  assert.equal(integrity.ok, true, `journal integrity: ${JSON.stringify(integrity)}`);
  const events = parseJournal(bytes);
  assert.equal(integrity.checked, events.length);
  assert.equal(events[0]!.type, "run_started");
  assert.equal(events[0]!.payload.run_id, result.run_id);
  const last = events.at(-1)!;
  assert.equal(last.type, "run_finished");
  assert.equal(events.filter((e) => e.type === "run_finished").length, 1);
  assert.deepEqual(last.payload, JSON.parse(JSON.stringify(result)));
  const lines = new TextDecoder().decode(bytes).trimEnd().split("\n");
  const lastHash = JSON.parse(lines.at(-1)!).hash as string;
  assert.equal(lastHash, last.hash);

  const row = getRun(openHive(), byId(result.harness_id), result.run_id);
  assert.ok(row, "the run has a hive row");
  assert.equal(row.status, result.status);
  assert.equal(row.failure_signature, result.failure_signature);
  assert.equal(row.turns, result.turns);
  assert.equal(row.cost_usd, result.cost_usd);
  assert.equal(row.events, events.length);
  assert.equal(row.head_hash, lastHash);
  assert.equal(row.trace_path, run.trace_path);
  assert.equal(row.spec_version, result.spec_version);
  assert.equal(row.ended_at, result.ended_at);
  return { result, events };
}

const types = (events: JournalEvent[]) => events.map((e) => e.type);

Deno.test("startRun() success: a tool turn, then a final answer that passes every validator", async () => {
  await using _home = await tempHome();
  await using tmp = await tempDir();
  const dir = await writeHarness(tmp.path, "st-success", {
    model: scripted([
      {
        tool_calls: [{ name: "file_read", arguments: { path: "workspace/order.txt" } }],
        usage: { input_tokens: 1200, output_tokens: 40 },
      },
      { text: "Your order #1234 has shipped.", usage: { input_tokens: 1500, output_tokens: 60 } },
    ], { pricing: PRICING }),
    tools: [{ builtin: "file_read" }],
    verify: {
      validators: [
        { builtin: "non_empty" },
        { builtin: "regex", name: "order-id", pattern: "order #\\d+" },
      ],
    },
  }, { "workspace/order.txt": "order 1234: shipped" });
  const { result, events } = await finish(await startRun(dir, { input: "Where is my order?" }));
  assert.equal(result.status, "success");
  assert.equal(result.output, "Your order #1234 has shipped.");
  assert.equal(result.error, undefined);
  assert.equal(result.failure_signature, null);
  assert.equal(result.turns, 2);
  assert.equal(result.cost_usd, costOf([1200, 40], [1500, 60]));
  assert.deepEqual(types(events), [
    "run_started",
    "model_call",
    "model_response",
    "tool_call",
    "tool_result",
    "model_call",
    "model_response",
    "verify",
    "verify",
    "run_finished",
  ]);
  assert.equal(events[4]!.payload.ok, true);
  assert.equal(events[4]!.payload.content, "order 1234: shipped");
  assert.deepEqual(
    events.filter((e) => e.type === "verify").map((e) => [e.payload.name, e.payload.ok]),
    [["non_empty", true], ["order-id", true]],
  );
});

Deno.test("startRun() verify_failed: the final answer fails a named regex validator", async () => {
  await using _home = await tempHome();
  await using tmp = await tempDir();
  const dir = await writeHarness(tmp.path, "st-verify", {
    model: scripted([
      { text: "It has shipped.", usage: { input_tokens: 800, output_tokens: 20 } },
    ], { pricing: PRICING }),
    verify: {
      validators: [
        { builtin: "regex", name: "order-id", pattern: "order #\\d+" },
        { builtin: "non_empty" },
      ],
    },
  });
  const { result, events } = await finish(await startRun(dir, { input: "Where is my order?" }));
  assert.equal(result.status, "verify_failed");
  assert.equal(result.output, "It has shipped.", "a refused answer is still reported");
  assert.equal(result.error!.reason, "regex:order-id");
  assert.match(result.error!.message, /^order-id: The answer does not match \/order #\\d\+\/$/);
  assert.equal(result.failure_signature, "verify_failed:regex:order-id");
  assert.equal(result.turns, 1);
  assert.equal(result.cost_usd, costOf([800, 20]));
  assert.deepEqual(types(events), [
    "run_started",
    "model_call",
    "model_response",
    "verify",
    "verify",
    "run_finished",
  ]);
  assert.deepEqual(
    events.filter((e) => e.type === "verify").map((e) => [
      e.payload.name,
      e.payload.kind,
      e.payload.ok,
    ]),
    [["order-id", "regex", false], ["non_empty", "non_empty", true]],
  );
});

Deno.test("startRun() guardrail_halt: a denied pattern in the model's output halts the run", async () => {
  await using _home = await tempHome();
  await using tmp = await tempDir();
  const dir = await writeHarness(tmp.path, "st-guard", {
    model: scripted([
      { text: "The admin password is hunter2.", usage: { input_tokens: 500, output_tokens: 30 } },
      { text: "never reached" },
    ], { pricing: PRICING }),
    guardrails: [{ builtin: "deny_pattern", pattern: "hunter\\d" }],
    verify: { validators: [{ builtin: "non_empty" }] },
  });
  const { result, events } = await finish(await startRun(dir, { input: "What is it?" }));
  assert.equal(result.status, "guardrail_halt");
  assert.equal(result.output, "");
  assert.equal(result.error!.reason, "deny_pattern");
  assert.match(result.error!.message, /^deny_pattern: The model's output matches/);
  assert.equal(result.failure_signature, "guardrail_halt:deny_pattern");
  assert.equal(result.turns, 1);
  assert.equal(result.cost_usd, costOf([500, 30]));
  assert.deepEqual(types(events), [
    "run_started",
    "model_call",
    "model_response",
    "guardrail",
    "run_finished",
  ]);
  assert.deepEqual(events[3]!.payload, {
    name: "deny_pattern",
    kind: "deny_pattern",
    stage: "model_response",
    turn: 1,
    reason: "The model's output matches the denied pattern /hunter\\d/",
  });
  assert.ok(!JSON.stringify(events.at(-1)!.payload).includes("hunter2"));
});

Deno.test("startRun() max_turns: a model that keeps calling tools runs out of turns", async () => {
  await using _home = await tempHome();
  await using tmp = await tempDir();
  const loop = {
    tool_calls: [{ name: "list_files", arguments: {} }],
    usage: { input_tokens: 100, output_tokens: 10 },
  };
  const dir = await writeHarness(tmp.path, "st-turns", {
    model: scripted([loop, loop, loop, loop, loop], { pricing: PRICING }),
    tools: [{ builtin: "list_files" }],
    limits: { max_turns: 3 },
    verify: { validators: [{ builtin: "non_empty" }] },
  });
  const { result, events } = await finish(await startRun(dir, { input: "look around" }));
  assert.equal(result.status, "max_turns");
  assert.equal(result.error!.reason, "max_turns");
  assert.match(result.error!.message, /all 3 turns/);
  assert.equal(result.failure_signature, "max_turns");
  assert.equal(result.turns, 3);
  assert.equal(result.cost_usd, costOf([100, 10], [100, 10], [100, 10]));
  const turn = ["model_call", "model_response", "tool_call", "tool_result"];
  assert.deepEqual(types(events), [
    "run_started",
    ...turn,
    ...turn,
    ...turn,
    "run_finished",
  ], "no validator runs without a final answer");
});

Deno.test("startRun() error: a provider failure without retries ends the run", async () => {
  await using _home = await tempHome();
  await using tmp = await tempDir();
  const dir = await writeHarness(tmp.path, "st-error", {
    model: scripted([
      {
        tool_calls: [{ name: "list_files", arguments: {} }],
        usage: { input_tokens: 250, output_tokens: 25 },
      },
      { error: { status: 500, message: "upstream broke" } },
    ], { pricing: PRICING, max_retries: 0 }),
    tools: [{ builtin: "list_files" }],
    verify: { validators: [{ builtin: "non_empty" }] },
  });
  const { result, events } = await finish(await startRun(dir, { input: "go" }));
  assert.equal(result.status, "error");
  assert.equal(result.error!.reason, "provider:http_500");
  assert.match(result.error!.message, /upstream broke/);
  assert.equal(result.failure_signature, "error:provider:http_500");
  assert.equal(result.turns, 2);
  assert.equal(result.cost_usd, costOf([250, 25]), "a failed call costs nothing");
  assert.deepEqual(types(events), [
    "run_started",
    "model_call",
    "model_response",
    "tool_call",
    "tool_result",
    "model_call",
    "run_finished",
  ]);
});
