/**
 * Live controls through real runs: while turn 1's model call is in flight, steering messages are
 * queued, edited and deleted, the model and the playbook are changed; at the turn boundary the
 * journal shows each applied control in queue order and the next model call uses them all. Gates
 * refuse, the model switches its own mode, and stop waits for the boundary unless `now`.
 *
 * @module
 */

import assert from "node:assert/strict";
import { FrameworkError } from "../../lib/errors.ts";
import { openHive } from "../../lib/hive/open.ts";
import { getRunAnyHarness, reasonOfRunError } from "../../lib/hive/runs.ts";
import { signatureOutcome } from "../../lib/failure_signature.ts";
import { runOutcome } from "../../lib/run_types.ts";
import type { JournalEvent } from "../../lib/journal/event.ts";
import { parseJournal, verifyJournal } from "../../lib/journal/verify.ts";
import type { RunHandle } from "../../lib/runner/run_handle.ts";
import { startRun } from "../../lib/runs/service.ts";
import { trustFolder } from "../../lib/trust/store.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir, tempHome } from "../helpers/temp.ts";

const GATES = `
export function allow(event: { from: string | null; to: string }) {
  return { allow: true, reason: "from " + event.from };
}
export function refuse() {
  return { allow: false, reason: "not during a review" };
}
export function vague() {
  return "yes";
}
`;

const PLAYBOOKS = [
  {
    name: "draft",
    default: true,
    instructions: "Draft freely.",
    tools: ["list_files", "switch_playbook"],
  },
  {
    name: "review",
    instructions: "Review strictly; answer in French.",
    tools: ["file_read"],
    on_enter: "gates.ts#allow",
  },
  { name: "locked", instructions: "Never reached.", on_enter: "gates.ts#refuse" },
  { name: "odd", on_enter: "gates.ts#vague" },
  { name: "broken", on_enter: "gates.ts#missing" },
];

async function journalOf(run: RunHandle): Promise<JournalEvent[]> {
  const bytes = await Deno.readFile(run.trace_path);
  assert.equal(verifyJournal(bytes).ok, true);
  return parseJournal(bytes);
}

/** Waits for the first event of a type (replayed from the start when already written). */
async function eventOf(run: RunHandle, type: string, after = 0): Promise<JournalEvent> {
  for await (const e of run.events) if (e.type === type && e.seq > after) return e;
  throw new Error(`the run ended without ${type}`);
}

function conflict(err: unknown): boolean {
  return err instanceof FrameworkError && err.kind === "conflict";
}

Deno.test("live controls: steer, edit, delete, change model and mode while turn 1 is in flight", async () => {
  await using _home = await tempHome();
  await using root = await tempDir();
  const dir = await writeHarness(root.path, "live", {
    instructions: "You help.",
    model: scripted([
      { tool_calls: [{ name: "list_files", arguments: {} }], delay_ms: 600 },
    ]),
    tools: [{ builtin: "list_files" }, { builtin: "file_read" }, { builtin: "switch_playbook" }],
    playbooks: PLAYBOOKS,
  }, { "gates.ts": GATES, "notes.md": "hello\n" });
  await trustFolder(dir);
  const run = await startRun(dir, { input: "Look around" });
  const controls = run.controls;

  const firstCall = await eventOf(run, "model_call");
  assert.equal(firstCall.payload.playbook, "draft");
  assert.deepEqual(firstCall.payload.tools, ["list_files", "switch_playbook"]);
  assert.deepEqual(controls.state, { playbook: "draft", model: "scripted:test-script" });

  // Turn 1's model call is in flight (600 ms): queue, edit and delete.
  const first = controls.steer("Answer in English.");
  const second = controls.steer("Ignore this one.");
  assert.match(first.id, /^msg_[0-9A-Z]{26}$/);
  assert.equal(first.status, "queued");
  assert.equal(first.delivered_turn, null);
  const edited = controls.edit(first.id, "Answer in French.");
  assert.equal(edited.text, "Answer in French.");
  assert.equal(edited.created_at, first.created_at);
  controls.remove(second.id);
  assert.deepEqual(controls.messages().map((m) => [m.id, m.text]), [[
    first.id,
    "Answer in French.",
  ]]);
  const model = controls.changeModel({
    provider: "scripted",
    name: "second",
    pricing: { input_per_mtok: 2, output_per_mtok: 20 },
    replies: [{ text: "Fini.", delay_ms: 400, usage: { input_tokens: 1000, output_tokens: 100 } }],
  }, "test");
  assert.match(model.id, /^ctl_[0-9A-Z]{26}$/);
  assert.deepEqual([model.kind, model.status], ["model", "queued"]);
  const mode = controls.switchPlaybook("review", "test");
  assert.equal(mode.kind, "playbook");
  assert.throws(() => controls.switchPlaybook("nope", "test"), /No playbook named "nope"/);

  // Turn 2 is in flight: the delivered message is read-only, a new one is still editable.
  const secondCall = await eventOf(run, "model_call", firstCall.seq);
  assert.throws(() => controls.edit(first.id, "too late"), (e) => conflict(e));
  assert.throws(() => controls.remove(first.id), (e) => conflict(e));
  const delivered = controls.messages().find((m) => m.id === first.id)!;
  assert.equal(delivered.status, "delivered");
  assert.equal(delivered.delivered_turn, 2);

  const result = await run.result;
  assert.equal(result.status, "success", JSON.stringify(result.error));
  assert.equal(result.output, "Fini.");
  // From the change on, cost uses the new model's price.
  assert.equal(result.cost_usd, 0.004);
  assert.throws(() => controls.steer("after the end"), (e) => conflict(e));

  const events = await journalOf(run);
  const types = events.map((e) => e.type);
  const boundary = types.slice(types.indexOf("tool_result") + 1, types.lastIndexOf("model_call"));
  assert.deepEqual(boundary, [
    "steering_delivered",
    "model_changed",
    "playbook_changed",
    "system_changed",
  ]);
  const at = (type: string) => events.find((e) => e.type === type)!.payload;
  assert.deepEqual(at("steering_delivered"), {
    message_id: first.id,
    text: "Answer in French.",
    turn: 2,
  });
  assert.deepEqual(at("model_changed"), {
    from: "scripted:test-script",
    to: "scripted:second",
    turn: 2,
    by: "test",
  });
  assert.deepEqual(at("playbook_changed"), { from: "draft", to: "review", turn: 2, by: "test" });
  assert.match(String(at("system_changed").system), /## Mode: review\nReview strictly/);
  // The next model call: the new model, the new mode's tools, the steering text and the mode note.
  const call2 = events.find((e) => e.seq === secondCall.seq)!.payload;
  assert.deepEqual(call2.model, { provider: "scripted", name: "second" });
  assert.equal(call2.playbook, "review");
  assert.deepEqual(call2.tools, ["file_read", "switch_playbook"]);
  const appended = (call2.append as { role: string; content: string }[]).filter((m) =>
    m.role === "user"
  ).map((m) => m.content);
  assert.deepEqual(appended, [
    "Answer in French.",
    "Mode changed from draft to review.\n\nReview strictly; answer in French.",
  ]);
  assert.equal(events.find((e) => e.type === "run_started")!.payload.playbook, "draft");
});

Deno.test("live controls: refused gates keep the mode and are journalled; the model switches itself", async () => {
  await using _home = await tempHome();
  await using root = await tempDir();
  const dir = await writeHarness(root.path, "gated", {
    model: scripted([
      { tool_calls: [{ name: "switch_playbook", arguments: { name: "locked" } }], delay_ms: 300 },
      { tool_calls: [{ name: "switch_playbook", arguments: { name: "review" } }] },
      { text: "Done in review." },
    ]),
    tools: [{ builtin: "list_files" }, { builtin: "file_read" }, { builtin: "switch_playbook" }],
    playbooks: PLAYBOOKS,
  }, { "gates.ts": GATES });
  await trustFolder(dir);
  const run = await startRun(dir, { input: "Switch around" });
  await eventOf(run, "model_call");
  run.controls.switchPlaybook("odd", "person");
  run.controls.switchPlaybook("broken", "person");
  const result = await run.result;
  assert.equal(result.status, "success", JSON.stringify(result.error));

  const events = await journalOf(run);
  const refused = events.filter((e) => e.type === "playbook_refused").map((e) => e.payload);
  assert.deepEqual(refused, [
    {
      from: "draft",
      to: "odd",
      gate: "on_enter",
      reason: 'The gate answered "yes", not {allow: boolean, reason?: string}',
      turn: 2,
      by: "person",
    },
    {
      from: "draft",
      to: "broken",
      gate: "on_enter",
      reason: refused[1]?.reason,
      turn: 2,
      by: "person",
    },
    {
      from: "draft",
      to: "locked",
      gate: "on_enter",
      reason: "not during a review",
      turn: 2,
      by: "model",
    },
  ]);
  // A gate that does not load refuses, and says why (validate reports it as an error beforehand).
  assert.match(String(refused[1]!.reason), /^The gate failed: .*missing/);
  const changed = events.filter((e) => e.type === "playbook_changed").map((e) => e.payload);
  assert.deepEqual(changed, [{ from: "draft", to: "review", turn: 3, by: "model" }]);
  const calls = events.filter((e) => e.type === "model_call").map((e) => e.payload);
  assert.deepEqual(calls.map((c) => c.playbook), ["draft", "draft", "review"]);
  // The model was told of its refused switch, and of the change.
  const told = (calls[1]!.append as { role: string; content: string }[]).filter((m) =>
    m.role === "user"
  );
  assert.deepEqual(told.map((m) => m.content), [
    "Mode change from draft to locked was refused (on_enter): not during a review",
  ]);
  const tool = events.find((e) => e.type === "tool_result")!.payload;
  assert.match(String(tool.content), /Switching to the locked mode at the end of this turn/);
});

Deno.test("live controls: stop waits for the boundary; stop now aborts the call in flight", async (t) => {
  await using _home = await tempHome();
  await using root = await tempDir();
  const dir = await writeHarness(root.path, "stoppable", {
    model: scripted([
      {
        tool_calls: [{ name: "list_files", arguments: {} }],
        delay_ms: 500,
        usage: { input_tokens: 1000, output_tokens: 100 },
      },
      { text: "never" },
    ], { pricing: { input_per_mtok: 1, output_per_mtok: 10 } }),
    tools: [{ builtin: "list_files" }],
  });

  await t.step(
    "without now: the call in flight finishes and is journalled with its cost",
    async () => {
      const run = await startRun(dir, { input: "go" });
      await eventOf(run, "model_call");
      const control = run.controls.stop("person");
      assert.deepEqual([control.kind, control.status], ["stop", "queued"]);
      const result = await run.result;
      assert.equal(result.status, "error");
      assert.equal(result.error?.reason, "stopped");
      assert.equal(result.turns, 1);
      assert.equal(result.cost_usd, 0.002);
      const events = await journalOf(run);
      assert.deepEqual(events.map((e) => e.type), [
        "run_started",
        "model_call",
        "model_response",
        "tool_call",
        "tool_result",
        "run_stopped",
        "run_finished",
      ]);
      assert.equal(events[2]!.payload.cost_usd, 0.002);
      assert.deepEqual(events[5]!.payload, { turn: 1, by: "person" });
    },
  );

  await t.step("now: the call in flight is aborted and the journal says so", async () => {
    const run = await startRun(dir, { input: "go" });
    await eventOf(run, "model_call");
    run.controls.stop("person", true);
    const result = await run.result;
    assert.equal(result.status, "error");
    assert.equal(result.error?.reason, "stopped");
    assert.equal(result.cost_usd, 0);
    const events = await journalOf(run);
    assert.deepEqual(events.map((e) => e.type), [
      "run_started",
      "model_call",
      "run_stopped",
      "run_finished",
    ]);
    assert.deepEqual(events[2]!.payload, { turn: 1, by: "person", now: true });
    // Its status stays error; its reason says it was stopped, and it reads "stopped".
    const row = getRunAnyHarness(openHive(), run.run_id)!;
    assert.deepEqual([row.status, row.reason, row.failure_signature], [
      "error",
      "stopped",
      "error:stopped",
    ]);
    assert.equal(runOutcome(row.status, row.reason), "stopped");
    assert.equal(signatureOutcome(row.failure_signature!), "stopped");
  });
});

Deno.test("runOutcome(): only a stopped run reads otherwise than its status", () => {
  assert.equal(runOutcome("error", "stopped"), "stopped");
  assert.equal(runOutcome("error", "timeout"), "error");
  assert.equal(runOutcome("error", "provider:http_429"), "error");
  assert.equal(runOutcome("error", null), "error");
  assert.equal(runOutcome("verify_failed", "stopped"), "verify_failed");
  assert.equal(runOutcome("running"), "running");
  assert.equal(signatureOutcome("error:interrupted"), "error");
  assert.equal(signatureOutcome("max_turns"), "max_turns");
  assert.equal(
    reasonOfRunError("provider:http_429: Too many requests: slow down"),
    "provider:http_429",
  );
  assert.equal(reasonOfRunError(null), null);
});

Deno.test("live controls: steering sent while the last answer is written is delivered, and the run goes on", async () => {
  await using _home = await tempHome();
  await using root = await tempDir();
  const dir = await writeHarness(root.path, "late", {
    model: scripted([{ text: "First answer.", delay_ms: 300 }, { text: "En français." }]),
  });
  const run = await startRun(dir, { input: "Answer" });
  await eventOf(run, "model_call");
  run.controls.steer("Now in French.");
  const result = await run.result;
  assert.equal(result.output, "En français.");
  assert.equal(result.turns, 2);
  const types = (await journalOf(run)).map((e) => e.type);
  assert.deepEqual(types, [
    "run_started",
    "model_call",
    "model_response",
    "steering_delivered",
    "model_call",
    "model_response",
    "run_finished",
  ]);
});
