/**
 * Live controls behind a slow playbook gate, over a real workbench process: a mode switch's
 * `on_enter` gate (code in the sandbox) holds the turn boundary until the test lets it go. A stop
 * with `now` during the gate stops the run — at a boundary between turns and at the boundary after
 * the final answer alike — and a steering message the boundary has already taken stays readable as
 * delivered (PATCH and DELETE answer 409) while the gate runs.
 *
 * Nothing waits on a clock: the gate, a tool and a hook write a file when they start and hold until
 * the test writes another.
 *
 * @module
 */

import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { parseJournal } from "../../lib/journal/verify.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { SseReader } from "../helpers/sse_reader.ts";
import { tempDir } from "../helpers/temp.ts";
import {
  type RunningWorkbenchProcess,
  startWorkbenchProcess,
  workbenchCall as call,
} from "../helpers/workbench.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** Waits for `workspace/<name>` and answers once it is there. */
const WAIT_FOR = `
async function waitFor(name: string) {
  while (true) {
    try {
      await Deno.stat("workspace/" + name);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}
`;

const GATES = `${WAIT_FOR}
export async function slow(event: { run_id: string }) {
  await Deno.writeTextFile("workspace/" + event.run_id + ".gate", "");
  await waitFor(event.run_id + ".open");
  return { allow: true };
}
`;

const TOOLS = `${WAIT_FOR}
export async function hold(args: { key: string }) {
  await waitFor(args.key + ".go");
  return "released";
}
`;

const HOOKS = `${WAIT_FOR}
export async function holdCall() {
  await Deno.writeTextFile("workspace/call.held", "");
  await waitFor("call.go");
}
`;

const PLAYBOOKS = [
  { name: "draft", default: true, instructions: "Draft." },
  { name: "slow", instructions: "Slowly.", on_enter: "gates.ts#slow" },
];

const FILES = {
  "gates.ts": GATES,
  "tools.ts": TOOLS,
  "hooks.ts": HOOKS,
  "workspace/.keep": "",
};

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

/** Waits until a file exists, on file-system events (no polling clock). */
async function untilFile(path: string): Promise<void> {
  using watcher = Deno.watchFs(dirname(path));
  if (await exists(path)) return;
  for await (const _ of watcher) if (await exists(path)) return;
}

function assertConflict(res: { status: number; json: Json }) {
  assert.equal(res.status, 409, JSON.stringify(res.json));
  assert.equal(res.json.error.kind, "conflict");
}

/** Starts a run of a harness and reads its stream up to `run_accepted`. */
async function startRun(
  wb: RunningWorkbenchProcess,
  harness: string,
  input: string,
): Promise<{ runId: string; sse: SseReader }> {
  const res = await fetch(`${wb.url}/api/harnesses/${harness}/runs?stream=true`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ input }),
  });
  const sse = new SseReader(res);
  const [accepted] = await sse.until(() => true, "run_accepted");
  return { runId: accepted!.data.run_id, sse };
}

function journalOf(dir: string, runId: string) {
  return Deno.readFile(join(dir, ".framework", "traces", `${runId}.jsonl`)).then(parseJournal);
}

Deno.test("workbench live runs: stop now and steering behind a slow playbook gate", async (t) => {
  await using home = await tempDir("fw-wbg-home-");
  await using cwd = await tempDir("fw-wbg-cwd-");
  const harnesses = join(cwd.path, "harnesses");
  const gated = await writeHarness(harnesses, "gated", {
    model: scripted([], {
      scenarios: [
        {
          match: "^steer",
          replies: [
            { tool_calls: [{ name: "hold", arguments: { key: "steer" } }] },
            { text: "Done after the gate." },
          ],
        },
        {
          match: "^stop",
          replies: [
            { tool_calls: [{ name: "switch_playbook", arguments: { name: "slow" } }] },
            { text: "never" },
          ],
        },
      ],
    }),
    // Old code let the gate run to this limit, then went on as if nobody had asked to stop.
    limits: { tool_timeout_s: 20 },
    tools: [{ code: "tools.ts#hold", name: "hold" }, { builtin: "switch_playbook" }],
    playbooks: PLAYBOOKS,
  }, FILES);
  const lastWord = await writeHarness(harnesses, "last-word", {
    model: scripted([{ text: "The final answer." }, { text: "never" }]),
    limits: { tool_timeout_s: 20 },
    hooks: [{ code: "hooks.ts#holdCall", on: "before_model_call" }],
    playbooks: PLAYBOOKS,
  }, FILES);
  await using wb = await startWorkbenchProcess({ home: home.path, cwd: cwd.path });
  // Code runs only in trusted folders: a person trusts them in the page.
  for (const id of ["gated", "last-word"]) {
    const trusted = await call(wb, "POST", `/api/harnesses/${id}/trust`, {});
    assert.equal(trusted.status, 200, JSON.stringify(trusted.json));
  }

  await t.step("stop now while the gate of a switch between turns runs", async () => {
    const { runId, sse } = await startRun(wb, "gated", "stop here");
    try {
      await untilFile(join(gated, "workspace", `${runId}.gate`));
      const stop = await call(wb, "POST", `/api/runs/${runId}/stop`, { now: true });
      assert.equal(stop.status, 200, JSON.stringify(stop.json));
      const result = (await sse.rest()).at(-1)!;
      assert.equal(result.event, "run_result");
      assert.equal(result.data.status, "error");
      assert.equal(result.data.error.reason, "stopped");
      const events = await journalOf(gated, runId);
      const types = events.map((e) => e.type);
      assert.deepEqual(types.slice(-2), ["run_stopped", "run_finished"]);
      assert.deepEqual(events.at(-2)!.payload, { turn: 1, by: "workbench", now: true });
      assert.equal(types.filter((x) => x === "model_call").length, 1, "no turn after the stop");
      assert.equal(types.includes("playbook_changed"), false);
    } finally {
      await sse.close();
    }
  });

  await t.step("stop now while the gate after the final answer runs", async () => {
    const { runId, sse } = await startRun(wb, "last-word", "Answer");
    try {
      // The only model call is held by the hook: the switch waits for the boundary after it.
      await untilFile(join(lastWord, "workspace", "call.held"));
      const mode = await call(wb, "POST", `/api/runs/${runId}/playbook`, { name: "slow" });
      assert.equal(mode.status, 200, JSON.stringify(mode.json));
      await Deno.writeTextFile(join(lastWord, "workspace", "call.go"), "");
      await untilFile(join(lastWord, "workspace", `${runId}.gate`));
      const stop = await call(wb, "POST", `/api/runs/${runId}/stop`, { now: true });
      assert.equal(stop.status, 200, JSON.stringify(stop.json));
      const result = (await sse.rest()).at(-1)!;
      assert.equal(result.data.status, "error", "a stopped run never ends in success");
      assert.equal(result.data.error.reason, "stopped");
      const events = await journalOf(lastWord, runId);
      assert.deepEqual(events.map((e) => e.type).slice(-3), [
        "model_response",
        "run_stopped",
        "run_finished",
      ]);
      assert.deepEqual(events.at(-2)!.payload, { turn: 1, by: "workbench", now: true });
    } finally {
      await sse.close();
    }
  });

  await t.step("a message taken behind the gate stays readable, and is 409 to change", async () => {
    const { runId, sse } = await startRun(wb, "gated", "steer it");
    const base = `/api/runs/${runId}`;
    try {
      await sse.until((f) => f.data?.type === "tool_call", "the held tool call");
      const mode = await call(wb, "POST", `${base}/playbook`, { name: "slow" });
      assert.equal(mode.status, 200, JSON.stringify(mode.json));
      const posted = await call(wb, "POST", `${base}/messages`, { text: "After the gate." });
      assert.equal(posted.status, 201, JSON.stringify(posted.json));
      const id = posted.json.data.message.id;
      await Deno.writeTextFile(join(gated, "workspace", "steer.go"), "");
      // The boundary has taken the switch and the message; the switch's gate holds it.
      await untilFile(join(gated, "workspace", `${runId}.gate`));

      const list = await call(wb, "GET", `${base}/messages`);
      assert.equal(list.status, 200, JSON.stringify(list.json));
      assert.deepEqual(
        list.json.data.messages.map((m: Json) => [m.id, m.text, m.status, m.delivered_turn]),
        [[id, "After the gate.", "delivered", 2]],
      );
      const one = await call(wb, "GET", `${base}/messages/${id}`);
      assert.equal(one.status, 200, JSON.stringify(one.json));
      assert.equal(one.json.data.message.status, "delivered");
      assertConflict(await call(wb, "PATCH", `${base}/messages`, { id, text: "late" }));
      assertConflict(await call(wb, "PATCH", `${base}/messages/${id}`, { text: "late" }));
      assertConflict(await call(wb, "DELETE", `${base}/messages?id=${id}`));
      assertConflict(await call(wb, "DELETE", `${base}/messages/${id}`));

      await Deno.writeTextFile(join(gated, "workspace", `${runId}.open`), "");
      const result = (await sse.rest()).at(-1)!;
      assert.equal(result.data.status, "success", JSON.stringify(result.data.error));
      assert.equal(result.data.output, "Done after the gate.");
      const events = await journalOf(gated, runId);
      const delivered = events.find((e) => e.type === "steering_delivered")!;
      assert.deepEqual(delivered.payload, { message_id: id, text: "After the gate.", turn: 2 });
      const types = events.map((e) => e.type);
      assert.ok(types.indexOf("playbook_changed") < types.indexOf("steering_delivered"));
      // The edit that was refused changed nothing.
      const after = await call(wb, "GET", `${base}/messages`);
      assert.deepEqual(
        after.json.data.messages.map((m: Json) => [m.id, m.text, m.status, m.delivered_turn]),
        [[id, "After the gate.", "delivered", 2]],
      );
    } finally {
      await sse.close();
    }
  });
});
