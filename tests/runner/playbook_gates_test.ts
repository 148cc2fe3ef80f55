/**
 * A playbook's `on_exit` gate, through real runs: leaving a mode calls its `on_exit` before the new
 * mode's `on_enter`, and an `on_exit` that refuses keeps the run in its mode (journalled
 * `playbook_refused` with `gate: "on_exit"`), whether a person or the model asked.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import type { JournalEvent } from "../../lib/journal/event.ts";
import { parseJournal, verifyJournal } from "../../lib/journal/verify.ts";
import type { RunHandle } from "../../lib/runner/run_handle.ts";
import { startRun } from "../../lib/runs/service.ts";
import { trustFolder } from "../../lib/trust/store.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir, tempHome } from "../helpers/temp.ts";

/** Gates that write each call to workspace/gates.log, so the test sees which ran and in what order. */
const GATES = `
async function log(line: string) {
  await Deno.writeTextFile("workspace/gates.log", line + "\\n", { append: true });
}
export async function leaveDraft(e: { from: string | null; to: string; gate: string }) {
  await log(e.gate + " " + e.from + "->" + e.to);
  if (e.to === "publish") return { allow: false, reason: "a draft is reviewed before it is published" };
  return { allow: true };
}
export async function enter(e: { from: string | null; to: string; gate: string }) {
  await log(e.gate + " " + e.from + "->" + e.to);
  return { allow: true };
}
`;

const PLAYBOOKS = [
  { name: "draft", default: true, instructions: "Draft freely.", on_exit: "gates.ts#leaveDraft" },
  { name: "review", instructions: "Review strictly.", on_enter: "gates.ts#enter" },
  { name: "publish", instructions: "Publish.", on_enter: "gates.ts#enter" },
];

async function journalOf(run: RunHandle): Promise<JournalEvent[]> {
  const bytes = await Deno.readFile(run.trace_path);
  assert.equal(verifyJournal(bytes).ok, true);
  return parseJournal(bytes);
}

async function eventOf(run: RunHandle, type: string): Promise<JournalEvent> {
  for await (const e of run.events) if (e.type === type) return e;
  throw new Error(`the run ended without ${type}`);
}

Deno.test("playbooks: on_exit runs before on_enter on a switch, and can refuse it", async () => {
  await using _home = await tempHome();
  await using root = await tempDir();
  const dir = await writeHarness(root.path, "exits", {
    model: scripted([
      // While this call is in flight, a person asks for "publish" (refused by draft's on_exit).
      { tool_calls: [{ name: "switch_playbook", arguments: { name: "publish" } }], delay_ms: 300 },
      // The model asks for "review": draft's on_exit lets it go, review's on_enter lets it in.
      { tool_calls: [{ name: "switch_playbook", arguments: { name: "review" } }] },
      { text: "Reviewed." },
    ]),
    tools: [{ builtin: "switch_playbook" }],
    playbooks: PLAYBOOKS,
  }, { "gates.ts": GATES, "workspace/.keep": "" });
  await trustFolder(dir);
  const run = await startRun(dir, { input: "Move through the modes" });
  await eventOf(run, "model_call");
  run.controls.switchPlaybook("publish", "person");
  const result = await run.result;
  assert.equal(result.status, "success", JSON.stringify(result.error));

  const events = await journalOf(run);
  const refused = events.filter((e) => e.type === "playbook_refused").map((e) => e.payload);
  const why = "a draft is reviewed before it is published";
  assert.deepEqual(refused, [
    { from: "draft", to: "publish", gate: "on_exit", reason: why, turn: 2, by: "person" },
    { from: "draft", to: "publish", gate: "on_exit", reason: why, turn: 2, by: "model" },
  ]);
  const changed = events.filter((e) => e.type === "playbook_changed").map((e) => e.payload);
  assert.deepEqual(changed, [{ from: "draft", to: "review", turn: 3, by: "model" }]);
  const calls = events.filter((e) => e.type === "model_call").map((e) => e.payload.playbook);
  assert.deepEqual(calls, ["draft", "draft", "review"], "a refused exit keeps the mode");

  // Each switch called draft's on_exit first; publish's on_enter never ran.
  const log = await Deno.readTextFile(join(dir, "workspace", "gates.log"));
  assert.deepEqual(log.trim().split("\n"), [
    "on_exit draft->publish",
    "on_exit draft->publish",
    "on_exit draft->review",
    "on_enter draft->review",
  ]);
});
