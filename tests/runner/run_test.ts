import assert from "node:assert/strict";
import { FrameworkError } from "../../lib/errors.ts";
import { openHive } from "../../lib/hive/open.ts";
import { getRun, listRuns } from "../../lib/hive/runs.ts";
import { foldContext } from "../../lib/journal/fold.ts";
import { parseJournal, verifyJournal } from "../../lib/journal/verify.ts";
import { createScriptedModel } from "../../lib/models/scripted.ts";
import type { Message, ModelProvider } from "../../lib/models/types.ts";
import { startRun } from "../../lib/runs/service.ts";
import type { RunResult } from "../../lib/run_types.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir, tempHome } from "../helpers/temp.ts";
import { byId } from "../helpers/hive.ts";

const PRICING = { input_per_mtok: 1, output_per_mtok: 2 };

/** Checks result, journal and hive row agree, and returns the events. */
async function checkEndToEnd(result: RunResult, tracePath: string) {
  const bytes = await Deno.readFile(tracePath);
  const integrity = verifyJournal(bytes);
  assert.equal(integrity.ok, true);
  const events = parseJournal(bytes);
  assert.equal(events[0]!.type, "run_started");
  const last = events.at(-1)!;
  assert.equal(last.type, "run_finished");
  assert.deepEqual(last.payload, JSON.parse(JSON.stringify(result)));
  const row = getRun(openHive(), byId(result.harness_id), result.run_id)!;
  assert.equal(row.status, result.status);
  assert.equal(row.turns, result.turns);
  assert.equal(row.cost_usd, result.cost_usd);
  assert.equal(row.duration_ms, result.duration_ms);
  assert.equal(row.failure_signature, result.failure_signature);
  assert.equal(row.head_hash, last.hash);
  assert.equal(row.events, events.length);
  assert.equal(row.trace_path, tracePath);
  return events;
}

Deno.test("startRun() success: two turns with a tool call, journal, cost and hive row agree", async () => {
  await using _home = await tempHome();
  await using tmp = await tempDir();
  const dir = await writeHarness(tmp.path, "ok", {
    model: scripted([
      {
        tool_calls: [{ name: "file_read", arguments: { path: "workspace/n.txt" } }],
        usage: { input_tokens: 1000, output_tokens: 100 },
      },
      { text: "The note says hi.", usage: { input_tokens: 2000, output_tokens: 50 } },
    ], { pricing: PRICING }),
    tools: [{ builtin: "file_read" }],
  }, { "workspace/n.txt": "hi" });
  const run = await startRun(dir, { input: "read it" });
  assert.match(run.run_id, /^run_[0-9A-Z]{26}$/);
  const result = await run.result;
  assert.equal(result.status, "success");
  assert.equal(result.output, "The note says hi.");
  assert.equal(result.turns, 2);
  assert.equal(result.cost_usd, (3000 * 1 + 150 * 2) / 1e6);
  assert.equal(result.failure_signature, null);
  assert.equal(result.error, undefined);
  const events = await checkEndToEnd(result, run.trace_path);
  assert.deepEqual(events.map((e) => e.type), [
    "run_started",
    "model_call",
    "model_response",
    "tool_call",
    "tool_result",
    "model_call",
    "model_response",
    "run_finished",
  ]);
  assert.equal(events[4]!.payload.content, "hi");
  assert.deepEqual(
    run.events.snapshot().map((e) => e.hash),
    events.map((e) => e.hash),
    "the live stream is the journal",
  );
});

Deno.test("startRun() max_turns: a model that keeps calling tools stops at limits.max_turns", async () => {
  await using _home = await tempHome();
  await using tmp = await tempDir();
  const loop = { tool_calls: [{ name: "list_files", arguments: {} }] };
  const dir = await writeHarness(tmp.path, "loops", {
    model: scripted([loop, loop, loop, loop]),
    tools: [{ builtin: "list_files" }],
    limits: { max_turns: 2 },
  });
  const run = await startRun(dir, { input: "go" });
  const result = await run.result;
  assert.equal(result.status, "max_turns");
  assert.equal(result.turns, 2);
  assert.equal(result.failure_signature, "max_turns");
  assert.match(result.error!.message, /all 2 turns/);
  const events = await checkEndToEnd(result, run.trace_path);
  assert.equal(events.filter((e) => e.type === "model_call").length, 2);
  assert.equal(
    events.filter((e) => e.type === "tool_result").length,
    2,
    "the last turn's tools still ran",
  );
});

Deno.test("startRun() error: provider failures, exhausted scripts, timeouts and stops", async (t) => {
  await using _home = await tempHome();
  await using tmp = await tempDir();
  const cases: [string, Record<string, unknown>, Record<string, unknown>, string][] = [
    [
      "a provider 500",
      scripted([{ error: { status: 500, message: "upstream broke" } }], { max_retries: 0 }),
      {},
      "error:provider:http_500",
    ],
    [
      "a 503 still failing after retries",
      scripted(
        [1, 2, 3].map(() => ({ error: { status: 503, message: "down", retry_after_s: 0 } })),
        {
          max_retries: 2,
        },
      ),
      {},
      "error:provider:http_503",
    ],
    [
      "an exhausted script",
      scripted([{ tool_calls: [{ name: "list_files" }] }]),
      {},
      "error:provider:script_exhausted",
    ],
    [
      "a timeout",
      scripted([{ text: "late", delay_ms: 5000 }]),
      { timeout_s: 0.2 },
      "error:timeout",
    ],
  ];
  for (const [label, model, limits, signature] of cases) {
    await t.step(label, async () => {
      const dir = await writeHarness(tmp.path, label.replace(/\W+/g, "-").replace(/^-/, ""), {
        model,
        tools: [{ builtin: "list_files" }],
        limits,
      });
      const run = await startRun(dir, { input: "go" });
      const result = await run.result;
      assert.equal(result.status, "error");
      assert.equal(result.failure_signature, signature);
      assert.ok(result.error!.message.length > 0);
      await checkEndToEnd(result, run.trace_path);
    });
  }
  await t.step("a stop through the abort signal", async () => {
    const dir = await writeHarness(tmp.path, "stopped", {
      model: scripted([{ text: "late", delay_ms: 5000 }]),
    });
    const controller = new AbortController();
    const run = await startRun(dir, { input: "go" }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    const result = await run.result;
    assert.equal(result.failure_signature, "error:stopped");
    assert.ok(result.duration_ms < 4000);
    await checkEndToEnd(result, run.trace_path);
  });
});

Deno.test("startRun() shows failing and unknown tools to the model and goes on", async () => {
  await using _home = await tempHome();
  await using tmp = await tempDir();
  const dir = await writeHarness(tmp.path, "tools", {
    model: scripted([
      {
        tool_calls: [{ name: "file_read", arguments: { path: "missing.txt" } }, {
          name: "nope",
          arguments: {},
        }],
      },
      {
        tool_calls: [{ name: "file_read", arguments: { path: ".env" } }, {
          name: "file_read",
          arguments: { wrong: 1 },
        }],
      },
      { text: "done" },
    ]),
    tools: [{ builtin: "file_read" }],
  });
  const run = await startRun(dir, { input: "go" });
  const result = await run.result;
  assert.equal(result.status, "success");
  const results = run.events.snapshot().filter((e) => e.type === "tool_result").map((e) =>
    e.payload
  );
  assert.deepEqual(results.map((p) => [p.ok, (p.error as { code: string }).code]), [
    [false, "not_found"],
    [false, "unknown_tool"],
    [false, "refused"],
    [false, "invalid_arguments"],
  ]);
  const folded = foldContext(
    run.events.snapshot(),
    run.events.snapshot().findLast((e) => e.type === "model_call")!.seq,
  );
  const toolMessages = folded.messages.filter((m) => m.role === "tool");
  assert.ok(
    toolMessages.every((m) => m.role === "tool" && m.is_error && m.content.startsWith("Error (")),
  );
});

Deno.test("foldContext() rebuilds exactly what the model was sent at every call", async () => {
  await using _home = await tempHome();
  await using tmp = await tempDir();
  const dir = await writeHarness(tmp.path, "fold", {
    instructions: "Answer briefly.",
    skills: [{ name: "tone", description: "How to sound", instructions: "Be warm." }],
    model: scripted([
      { tool_calls: [{ name: "load_skill", arguments: { name: "tone" } }] },
      {
        tool_calls: [{ name: "list_files", arguments: {} }, {
          name: "load_skill",
          arguments: { name: "x" },
        }],
      },
      { text: "Hello." },
    ]),
    tools: [{ builtin: "list_files" }],
  });
  const seen: { system: string; messages: Message[]; tools: string[] }[] = [];
  const run = await startRun(dir, { input: "hi" }, {
    createProvider: (model, ctx): ModelProvider => {
      const inner = createScriptedModel(model, ctx.input);
      return {
        ...inner,
        generate(req) {
          seen.push({
            system: req.system,
            messages: structuredClone(req.messages),
            tools: req.tools.map((t) => t.name),
          });
          return inner.generate(req);
        },
      };
    },
  });
  const result = await run.result;
  assert.equal(result.status, "success");
  const events = parseJournal(await Deno.readFile(run.trace_path));
  const calls = events.filter((e) => e.type === "model_call");
  assert.equal(calls.length, seen.length);
  for (const [i, call] of calls.entries()) {
    const folded = foldContext(events, call.seq);
    assert.deepEqual(folded.messages, seen[i]!.messages, `call ${i + 1}`);
    assert.equal(folded.system, seen[i]!.system);
    assert.deepEqual(folded.tools, seen[i]!.tools);
  }
  assert.match(seen[0]!.system, /Answer briefly\.\n\n## Skills\n.*\n- tone: How to sound/);
  assert.deepEqual(seen[0]!.tools, ["list_files", "load_skill"]);
});

Deno.test("startRun() takes input literally and refuses bad input before recording anything", async (t) => {
  await using _home = await tempHome();
  await using tmp = await tempDir();
  const dir = await writeHarness(tmp.path, "lit", { model: scripted([{ text: "ok" }]) }, {
    "secret.txt": "file content",
  });
  await t.step("input that names a real file stays literal", async () => {
    const run = await startRun(dir, { input: "secret.txt" });
    await run.result;
    const call = run.events.snapshot().find((e) => e.type === "model_call")!;
    assert.deepEqual(call.payload.append, [{ role: "user", content: "secret.txt" }]);
  });
  await t.step("input_file content becomes the input", async () => {
    const run = await startRun(dir, { input_file: "secret.txt" });
    await run.result;
    const call = run.events.snapshot().find((e) => e.type === "model_call")!;
    assert.deepEqual(call.payload.append, [{ role: "user", content: "file content" }]);
  });
  await t.step("refusals", async () => {
    const before = listRuns(openHive(), byId("lit")).length;
    for (
      const input of [{}, { input: 5 }, { input_file: "../x" }, { input_file: "missing.txt" }, {
        input_file: ".",
      }]
    ) {
      await assert.rejects(
        startRun(dir, input as { input?: string }),
        (e) => e instanceof FrameworkError && e.kind === "bad_input",
        JSON.stringify(input),
      );
    }
    assert.equal(listRuns(openHive(), byId("lit")).length, before);
  });
});

Deno.test("startRun() runs 20 runs at once in one process", async () => {
  await using _home = await tempHome();
  await using tmp = await tempDir();
  const dir = await writeHarness(tmp.path, "many", {
    model: scripted([{ text: "ok", delay_ms: 20 }]),
  });
  const runs = await Promise.all(Array.from({ length: 20 }, () => startRun(dir, { input: "x" })));
  const results = await Promise.all(runs.map((r) => r.result));
  assert.ok(results.every((r) => r.status === "success"));
  assert.equal(new Set(results.map((r) => r.run_id)).size, 20);
  assert.equal(listRuns(openHive(), byId("many"), { limit: 100 }).length, 20);
});

Deno.test("startRun() retries a 429 and journals each retry", async () => {
  await using _home = await tempHome();
  await using tmp = await tempDir();
  const dir = await writeHarness(tmp.path, "retry", {
    model: scripted([
      { error: { status: 429, message: "slow down", retry_after_s: 0 } },
      { error: { status: 502, message: "bad gateway", retry_after_s: 0 } },
      { text: "made it" },
    ]),
  });
  const run = await startRun(dir, { input: "go" });
  const result = await run.result;
  assert.equal(result.status, "success");
  assert.equal(result.output, "made it");
  assert.equal(result.turns, 1, "retries are part of one model call");
  const retries = run.events.snapshot().filter((e) => e.type === "model_retry").map((
    e,
  ) => [e.payload.attempt, e.payload.status]);
  assert.deepEqual(retries, [[1, 429], [2, 502]]);
});
