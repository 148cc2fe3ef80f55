/**
 * The chat's slash commands against a real workbench with no copilot model: each command calls the
 * copilot's own tool, its turn is a journalled copilot run (hash chain verified, the command's script
 * as the model, no language model), and the conversation stores it with the tool activity and the
 * artifacts the copilot's tool calls make. `/run` starts a live run that `/steer` and `/stop` act on;
 * `/fork`, `/eval`, `/propose`, `/measure`, `/remember` and `/help` do what they say; a command
 * written wrongly answers its usage, and an ordinary message still answers how to set a model up.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { parseJournal, verifyJournal } from "../../lib/journal/verify.ts";
import { slashCommand } from "../../lib/workbench/slash_commands.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { type Frame, SseReader } from "../helpers/sse_reader.ts";
import { tempDir } from "../helpers/temp.ts";
import {
  type RunningWorkbenchProcess,
  startWorkbenchProcess,
  workbenchCall as call,
} from "../helpers/workbench.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

async function chat(
  wb: RunningWorkbenchProcess,
  conversationId: string,
  message: string,
  selection?: Json,
): Promise<{ frames: Frame[]; message: Json; selection: Json }> {
  const res = await fetch(`${wb.url}/api/conversations/${conversationId}/messages`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ message, ...(selection ? { selection } : {}) }),
  });
  assert.equal(res.status, 200);
  const frames = await new SseReader(res).rest();
  const last = frames.find((f) => f.event === "message")!.data;
  return { frames, message: last.message, selection: last.selection };
}

function tool(message: Json): Json {
  const part = message.parts.find((p: Json) => p.type === "tool");
  return part && { ...part, json: part.ok ? JSON.parse(part.result) : null };
}

const EVOLVER = JSON.stringify({
  rationale: "Answer faster.",
  yaml_changes: [{ path: "limits.max_turns", op: "set", value: 3 }],
  code_changes: [],
});

Deno.test("slash commands: the copilot's tools with no model, journalled and stored as turns", async (t) => {
  await using home = await tempDir("fw-sl-home-");
  await using cwd = await tempDir("fw-sl-cwd-");
  const dir = await writeHarness(join(cwd.path, "harnesses"), "slow", {
    model: scripted([
      { text: "Thinking.", delay_ms: 1500, tool_calls: [{ name: "list_files", arguments: {} }] },
      { text: "Hello.", delay_ms: 1500 },
      { text: "Bonjour." },
    ]),
    tools: [{ builtin: "list_files" }],
    evolution: { model: scripted([{ text: EVOLVER }]) },
  }, { "evals/smoke.yaml": "cases:\n  - id: hi\n    input: hi\n" });
  await using wb = await startWorkbenchProcess({ home: home.path, cwd: cwd.path });
  assert.equal(wb.copilot, null);
  const listed = await call(wb, "GET", "/api/chat/commands");
  assert.deepEqual(
    listed.json.data.commands.map((c: Json) => c.name),
    ["run", "steer", "stop", "fork", "eval", "propose", "measure", "remember", "help"],
  );
  const conv = (await call(wb, "POST", "/api/conversations", { harness_id: "slow" })).json.data.id;
  const copilotTraces = join(home.path, "workbench", "copilot", ".framework", "traces");

  let runId = "";
  await t.step("/run starts a live run of the selected harness, as execute_run would", async () => {
    const turn = await chat(wb, conv, "/run Greet me", { harness_id: "slow", run_id: null });
    assert.equal(turn.frames[0]!.event, "run_accepted");
    const part = tool(turn.message);
    assert.equal(part.name, "execute_run");
    assert.deepEqual(part.arguments, { input: "Greet me", wait: false });
    assert.equal(part.ok, true, part.result);
    runId = part.json.run_id;
    assert.equal(part.json.status, "running");
    assert.match(turn.message.content, new RegExp(`Started run \`${runId}\` of \\*\\*slow\\*\\*`));
    assert.deepEqual(turn.selection, { harness_id: "slow", run_id: runId });
    // The turn is a journalled copilot run whose "model" is the command: no language model.
    const copilotRun = turn.message.run_id;
    const bytes = await Deno.readFile(join(copilotTraces, `${copilotRun}.jsonl`));
    assert.equal(verifyJournal(bytes).ok, true);
    const events = parseJournal(bytes);
    const calls = events.filter((e) => e.type === "model_call").map((e) => e.payload.model);
    assert.deepEqual(calls, [
      { provider: "scripted", name: "/run" },
      { provider: "scripted", name: "/run" },
    ]);
    const toolCall = events.find((e) => e.type === "tool_call")!.payload;
    assert.equal(toolCall.name, "execute_run");
    // The stored conversation has the command, the reply and the run artifact.
    const view = (await call(wb, "GET", `/api/conversations/${conv}`)).json.data;
    assert.deepEqual(view.messages.map((m: Json) => m.role), ["user", "assistant"]);
    assert.equal(view.messages[0].content, "/run Greet me");
    assert.deepEqual(
      view.artifacts.map((a: Json) => [a.kind, a.harness_id, JSON.parse(a.content).run_id]),
      [["run", "slow", runId]],
    );
  });

  await t.step("/steer and /stop act on the run started here", async () => {
    const steered = tool((await chat(wb, conv, "/steer Answer in French.")).message);
    assert.equal(steered.name, "steer_run");
    assert.equal(steered.ok, true, steered.result);
    assert.equal(steered.json.message.text, "Answer in French.");
    const stopped = await chat(wb, conv, "/stop");
    const stop = tool(stopped.message);
    assert.equal(stop.name, "stop_run");
    assert.equal(stop.ok, true, stop.result);
    assert.equal(stop.json.control.kind, "stop");
    assert.match(stopped.message.content, /stops at its next turn boundary/);
    let view: Json;
    for (let i = 0; i < 100; i++) {
      view = (await call(wb, "GET", `/api/runs/${runId}`)).json.data;
      if (!view.live) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(view.status, "error");
    const events = parseJournal(
      await Deno.readFile(join(dir, ".framework", "traces", `${runId}.jsonl`)),
    );
    assert.ok(events.some((e) => e.type === "steering_delivered"));
    assert.ok(events.some((e) => e.type === "run_stopped"));
    const again = tool((await chat(wb, conv, "/stop now")).message);
    assert.equal(again.ok, false);
    assert.match(again.result, /has already ended \(error\)/);
  });

  await t.step("/fork, /eval, /propose, /measure, /remember", async () => {
    const trace = (await call(wb, "GET", `/api/runs/${runId}`)).json.data;
    const seq = trace.events.find((e: Json) => e.type === "model_call").seq;
    const forked = await chat(wb, conv, `/fork ${seq} slow-b`, {
      harness_id: "slow",
      run_id: runId,
    });
    const fork = tool(forked.message);
    assert.equal(fork.name, "fork_run");
    assert.equal(fork.ok, true, fork.result);
    assert.equal(fork.json.harness.id, "slow-b");
    assert.ok(forked.message.parts.some((p: Json) => p.type === "artifact"));

    const evaluated = await chat(wb, conv, "/eval", { harness_id: "slow", run_id: null });
    const evalPart = tool(evaluated.message);
    assert.equal(evalPart.name, "measure_harness");
    assert.equal(evalPart.ok, true, evalPart.result);
    assert.equal(evalPart.json.eval.set, "smoke");
    assert.match(evaluated.message.content, /Eval set \*\*smoke\*\* of \*\*slow\*\*: \d\/1 cases/);

    const proposed = tool((await chat(wb, conv, "/propose fewer turns")).message);
    assert.equal(proposed.name, "propose_improvement");
    assert.equal(proposed.arguments.objective, "fewer turns");
    assert.equal(proposed.ok, true, proposed.result);
    assert.match(proposed.json.proposal_id, /^prop_/);

    const measured = await chat(wb, conv, "/measure");
    assert.equal(tool(measured.message).ok, true);
    assert.match(measured.message.content, /\*\*slow\*\*: \d+ runs/);

    const remembered = tool((await chat(wb, conv, "/remember Answers in French")).message);
    assert.equal(remembered.ok, true, remembered.result);
    const memories = (await call(wb, "GET", "/api/memories")).json.data.memories;
    assert.deepEqual(memories.map((m: Json) => [m.scope, m.content]), [
      ["global", "Answers in French"],
    ]);
  });

  await t.step("/help, a wrong command, a failing tool and an ordinary message", async () => {
    const help = await chat(wb, conv, "/help");
    assert.equal(help.message.run_id, null);
    for (const usage of ["/run <input>", "/fork <seq> <name>", "/eval [set]", "/remember <text>"]) {
      assert.ok(help.message.content.includes(usage), usage);
    }
    const wrong = await chat(wb, conv, "/fork six b");
    assert.equal(wrong.message.run_id, null);
    assert.match(wrong.message.content, /Usage: `\/fork <seq> <name>`/);
    const noSet = await chat(wb, conv, "/eval nightly");
    assert.equal(tool(noSet.message).ok, false);
    assert.match(noSet.message.content, /`\/eval` could not be done: No eval set "nightly"/);
    const bare = (await call(wb, "POST", "/api/conversations", {})).json.data.id;
    const nothing = await chat(wb, bare, "/measure");
    assert.match(
      nothing.message.content,
      /`\/measure` could not be done: no harness is selected; choose one above the chat/,
    );
    const text = await chat(wb, conv, "/etc/hosts is empty, why?");
    assert.match(text.message.content, /The copilot has no model yet/);
    assert.match(text.message.content, /`\/help` lists them/);
    const view = (await call(wb, "GET", `/api/conversations/${conv}`)).json.data;
    assert.equal(view.messages.length, 2 * 13);
  });
});

Deno.test("slashCommand() reads a command's arguments and leaves other messages alone", () => {
  const call = (text: string) => {
    const d = slashCommand(text);
    return d && "call" in d ? [d.call.name, d.call.arguments] : d && d.reply.split(".")[0];
  };
  assert.equal(slashCommand("hello"), null);
  assert.equal(slashCommand("/etc/hosts is empty"), null);
  assert.equal(slashCommand("/unknown thing"), null);
  assert.equal(slashCommand("please /run x"), null);
  assert.deepEqual(call("  /run  Greet me\nand more "), [
    "execute_run",
    { input: "Greet me\nand more", wait: false },
  ]);
  assert.equal(call("/run"), "Say what to run the harness with");
  assert.deepEqual(call("/stop"), ["stop_run", { now: false }]);
  assert.deepEqual(call("/stop now"), ["stop_run", { now: true }]);
  assert.match(String(call("/stop later")), /takes only "now"/);
  assert.deepEqual(call("/fork 6 try-b"), ["fork_run", { at: 6, name: "try-b" }]);
  assert.match(String(call("/fork 6")), /Give the seq/);
  assert.match(String(call("/fork -1 b")), /Give the seq/);
  assert.deepEqual(call("/eval"), ["measure_harness", { eval: true }]);
  assert.deepEqual(call("/eval nightly"), ["measure_harness", { eval: true, set: "nightly" }]);
  assert.match(String(call("/eval a b")), /Name one set/);
  assert.deepEqual(call("/propose"), ["propose_improvement", {}]);
  assert.deepEqual(call("/measure"), ["measure_harness", {}]);
  assert.match(String(call("/measure now")), /takes nothing/);
  assert.deepEqual(call("/remember Be brief"), [
    "remember_memory",
    { content: "Be brief", scope: "global" },
  ]);
  assert.match(String(call("/help")), /Commands call the copilot's tools directly/);
});

Deno.test("slash commands with a copilot model: the command skips the model, which keeps every tool", async () => {
  await using home = await tempDir("fw-slm-home-");
  await using cwd = await tempDir("fw-slm-cwd-");
  await using scripts = await tempDir("fw-slm-script-");
  await writeHarness(join(cwd.path, "harnesses"), "quick", { model: scripted([{ text: "ok" }]) });
  const script = join(scripts.path, "copilot.yaml");
  await Deno.writeTextFile(script, JSON.stringify({ replies: [{ text: "The model answers." }] }));
  await using wb = await startWorkbenchProcess({
    home: home.path,
    cwd: cwd.path,
    env: { FRAMEWORK_COPILOT_MODEL: `scripted:${script}` },
  });
  const catalog = (await call(wb, "GET", "/api/catalog/builtins")).json.data;
  for (const name of ["execute_run", "steer_run", "stop_run", "measure_harness", "fork_run"]) {
    assert.ok(catalog.copilot_tools.includes(name), name);
  }
  const conv = (await call(wb, "POST", "/api/conversations", { harness_id: "quick" })).json.data
    .id;
  const measured = await chat(wb, conv, "/measure");
  assert.equal(tool(measured.message).name, "measure_harness");
  assert.match(measured.message.content, /\*\*quick\*\*: 0 runs/);
  const talked = await chat(wb, conv, "How is quick doing?");
  assert.equal(talked.message.content, "The model answers.");
});
