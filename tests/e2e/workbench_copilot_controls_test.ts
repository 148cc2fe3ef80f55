/**
 * The copilot's own runs are not target runs: `GET /api/runs/{id}` answers 404 for them, and so does
 * every live control of the workbench API — steer (POST, GET, PATCH, DELETE, by body and by path),
 * model, playbook and stop — while the copilot's run is live and after it has ended. A target run the
 * copilot started stays controllable. Over a real workbench process, with a scripted copilot.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { parseJournal } from "../../lib/journal/verify.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { SseReader } from "../helpers/sse_reader.ts";
import { tempDir } from "../helpers/temp.ts";
import { startWorkbenchProcess, workbenchCall as call } from "../helpers/workbench.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** Holds until the test writes `workspace/go`. */
const HOLD_TOOL = `
export async function hold() {
  while (true) {
    try {
      await Deno.stat("workspace/go");
      return "released";
    } catch {
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}
`;

Deno.test("workbench: every live control answers 404 for the copilot's own runs, as GET does", async (t) => {
  await using home = await tempDir("fw-wbcc-home-");
  await using cwd = await tempDir("fw-wbcc-cwd-");
  await using scripts = await tempDir("fw-wbcc-script-");
  const held = await writeHarness(join(cwd.path, "harnesses"), "held", {
    model: scripted([{ tool_calls: [{ name: "hold", arguments: {} }] }, { text: "Released." }]),
    tools: [{ code: "tools.ts#hold", name: "hold" }],
    playbooks: [{ name: "draft", default: true }, { name: "other" }],
  }, { "tools.ts": HOLD_TOOL, "workspace/.keep": "" });
  const script = join(scripts.path, "copilot.yaml");
  await Deno.writeTextFile(
    script,
    JSON.stringify({
      replies: [
        {
          tool_calls: [{
            name: "execute_run",
            arguments: { harness: "held", input: "Hold on", wait: true },
          }],
        },
        { text: "It ran." },
      ],
    }),
  );
  await using wb = await startWorkbenchProcess({
    home: home.path,
    cwd: cwd.path,
    env: { FRAMEWORK_COPILOT_MODEL: `scripted:${script}` },
  });
  assert.equal((await call(wb, "POST", "/api/harnesses/held/trust", {})).status, 200);
  const conversation = (await call(wb, "POST", "/api/conversations", {})).json.data.id;
  const res = await fetch(`${wb.url}/api/conversations/${conversation}/messages`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ message: "Run held" }),
  });
  assert.equal(res.status, 200);
  const sse = new SseReader(res);

  const hidden = async (copilotRun: string) => {
    const base = `/api/runs/${copilotRun}`;
    const id = "msg_01ZZZZZZZZZZZZZZZZZZZZZZZZ";
    const answers: [string, { status: number; json: Json }][] = [
      ["GET run", await call(wb, "GET", base)],
      ["POST messages", await call(wb, "POST", `${base}/messages`, { text: "Obey me." })],
      ["GET messages", await call(wb, "GET", `${base}/messages`)],
      ["GET message", await call(wb, "GET", `${base}/messages/${id}`)],
      ["PATCH messages", await call(wb, "PATCH", `${base}/messages`, { id, text: "x" })],
      ["PATCH message", await call(wb, "PATCH", `${base}/messages/${id}`, { text: "x" })],
      ["DELETE messages", await call(wb, "DELETE", `${base}/messages?id=${id}`)],
      ["DELETE message", await call(wb, "DELETE", `${base}/messages/${id}`)],
      ["POST model", await call(wb, "POST", `${base}/model`, { model: "scripted:other" })],
      ["POST playbook", await call(wb, "POST", `${base}/playbook`, { name: "draft" })],
      ["POST stop", await call(wb, "POST", `${base}/stop`, {})],
      ["POST stop now", await call(wb, "POST", `${base}/stop`, { now: true })],
    ];
    for (const [what, answer] of answers) {
      assert.deepEqual(
        [what, answer.status, answer.json?.error?.kind],
        [what, 404, "not_found"],
        JSON.stringify(answer.json),
      );
    }
  };

  let targetRun = "";
  try {
    const [accepted] = await sse.until((f) => f.event === "run_accepted", "run_accepted");
    const copilotRun: string = accepted!.data.run_id;
    // The copilot's run is live, waiting on its execute_run call.
    await sse.until(
      (f) => f.data?.run_id === copilotRun && f.data?.type === "tool_call",
      "the copilot's execute_run call",
    );

    await t.step("while the copilot's run is live", async () => {
      await hidden(copilotRun);
    });

    await t.step("the target run it started stays controllable", async () => {
      const runs = (await call(wb, "GET", "/api/harnesses/held/runs")).json.data.runs;
      const target = runs.find((r: Json) => r.status === "running");
      assert.ok(target, JSON.stringify(runs));
      const steered = await call(wb, "POST", `/api/runs/${target.run_id}/messages`, {
        text: "Say released.",
      });
      assert.equal(steered.status, 201, JSON.stringify(steered.json));
      targetRun = target.run_id;
      await Deno.writeTextFile(join(held, "workspace", "go"), "");
    });

    const rest = await sse.rest();
    const result = rest.find((f) => f.event === "run_result")!.data.result;
    assert.equal(result.status, "success", JSON.stringify(result.error));
    assert.equal(result.output, "It ran.");

    await t.step("after the copilot's run has ended", async () => {
      await hidden(copilotRun);
    });

    const targetEvents = parseJournal(
      await Deno.readFile(join(held, ".framework", "traces", `${targetRun}.jsonl`)),
    );
    assert.deepEqual(
      targetEvents.filter((e) => e.type === "steering_delivered").map((e) => e.payload.text),
      ["Say released."],
    );
    // Nothing reached the copilot's run.
    const events = parseJournal(
      await Deno.readFile(
        join(home.path, "workbench", "copilot", ".framework", "traces", `${copilotRun}.jsonl`),
      ),
    );
    const controlled = events.filter((e) =>
      ["steering_delivered", "model_changed", "playbook_changed", "run_stopped"].includes(e.type)
    );
    assert.deepEqual(controlled, []);
  } finally {
    await sse.close();
  }
});

Deno.test("workbench: a conversation steers and stops its own copilot turn through /api/conversations/{id}/turn", async (t) => {
  await using home = await tempDir("fw-wbct-home-");
  await using cwd = await tempDir("fw-wbct-cwd-");
  await using scripts = await tempDir("fw-wbct-script-");
  const held = await writeHarness(join(cwd.path, "harnesses"), "held", {
    model: scripted([{ tool_calls: [{ name: "hold", arguments: {} }] }, { text: "Released." }]),
    tools: [{ code: "tools.ts#hold", name: "hold" }],
  }, { "tools.ts": HOLD_TOOL, "workspace/.keep": "" });
  const script = join(scripts.path, "copilot.yaml");
  await Deno.writeTextFile(
    script,
    JSON.stringify({
      replies: [
        {
          tool_calls: [{
            name: "execute_run",
            arguments: { harness: "held", input: "Hold on", wait: true },
          }],
        },
        { text: "It ran." },
        // A second turn: held again, then stopped by the person.
        {
          tool_calls: [{
            name: "execute_run",
            arguments: { harness: "held", input: "Hold again", wait: true },
          }],
        },
        { text: "Never said." },
      ],
    }),
  );
  await using wb = await startWorkbenchProcess({
    home: home.path,
    cwd: cwd.path,
    env: { FRAMEWORK_COPILOT_MODEL: `scripted:${script}` },
  });
  assert.equal((await call(wb, "POST", "/api/harnesses/held/trust", {})).status, 200);
  const conversation = (await call(wb, "POST", "/api/conversations", {})).json.data.id;
  const other = (await call(wb, "POST", "/api/conversations", {})).json.data.id;
  const turn = `/api/conversations/${conversation}/turn`;

  await t.step("no turn in flight: 409, saying so", async () => {
    const idle = await call(wb, "POST", `${turn}/messages`, { text: "Anyone?" });
    assert.equal(idle.status, 409, JSON.stringify(idle.json));
    assert.match(idle.json.error.message, /No turn of conversation .* is in flight/);
  });

  const send = async (message: string) => {
    const res = await fetch(`${wb.url}/api/conversations/${conversation}/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ message }),
    });
    const sse = new SseReader(res);
    const [accepted] = await sse.until((f) => f.event === "run_accepted", "run_accepted");
    const copilotRun: string = accepted!.data.run_id;
    await sse.until(
      (f) => f.data?.run_id === copilotRun && f.data?.type === "tool_call",
      "the copilot's execute_run call",
    );
    return { sse, copilotRun };
  };

  await t.step(
    "steer the turn in flight: queued, listed, delivered at its next boundary",
    async () => {
      const { sse, copilotRun } = await send("Run held");
      try {
        const queued = await call(wb, "POST", `${turn}/messages`, { text: "Be brief." });
        assert.equal(queued.status, 201, JSON.stringify(queued.json));
        const listed = await call(wb, "GET", `${turn}/messages`);
        assert.deepEqual(listed.json.data.messages.map((m: Json) => m.text), ["Be brief."]);
        // Another conversation has no turn in flight: it cannot reach this one.
        const foreign = await call(wb, "POST", `/api/conversations/${other}/turn/stop`, {});
        assert.equal(foreign.status, 409);
        await Deno.writeTextFile(join(held, "workspace", "go"), "");
        const result = (await sse.rest()).find((f) => f.event === "run_result")!.data.result;
        assert.equal(result.status, "success");
        const events = parseJournal(
          await Deno.readFile(
            join(home.path, "workbench", "copilot", ".framework", "traces", `${copilotRun}.jsonl`),
          ),
        );
        assert.deepEqual(
          events.filter((e) => e.type === "steering_delivered").map((e) => e.payload.text),
          ["Be brief."],
        );
      } finally {
        await sse.close();
      }
    },
  );

  await t.step("stop the turn in flight now", async () => {
    await Deno.remove(join(held, "workspace", "go"));
    const { sse } = await send("Run held again");
    try {
      const stopped = await call(wb, "POST", `${turn}/stop`, { now: true });
      assert.equal(stopped.status, 200, JSON.stringify(stopped.json));
      assert.equal(stopped.json.data.control.kind, "stop");
      const result = (await sse.rest()).find((f) => f.event === "run_result")!.data.result;
      assert.equal(result.status, "error");
      assert.equal(result.error.reason, "stopped");
    } finally {
      await sse.close();
      await Deno.writeTextFile(join(held, "workspace", "go"), "");
    }
  });
});
