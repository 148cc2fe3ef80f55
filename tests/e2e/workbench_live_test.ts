/**
 * The live-run API of the workbench (docs/workbench-api.md, Live runs) over a real server process:
 * steering messages queued, read, edited and deleted by body and by path while turn 1 is in flight,
 * model and playbook changes with their refusals, 409 once delivered or ended, 404 for unknown
 * runs, and the live mode and model in the run view and the Runs list.
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

function assertError(res: { status: number; json: Json }, status: number, kind: string) {
  assert.equal(res.status, status, JSON.stringify(res.json));
  assert.equal(res.json.ok, false);
  assert.equal(res.json.error.kind, kind);
}

Deno.test("workbench live runs: steer, edit, delete, switch model and mode over HTTP", async (t) => {
  await using home = await tempDir("fw-wbl-home-");
  await using cwd = await tempDir("fw-wbl-cwd-");
  const dir = await writeHarness(join(cwd.path, "harnesses"), "steered", {
    model: scripted([
      { tool_calls: [{ name: "list_files", arguments: {} }], delay_ms: 1500 },
      { text: "Fini.", delay_ms: 1500 },
    ]),
    tools: [{ builtin: "list_files" }],
    playbooks: [
      { name: "draft", default: true, instructions: "Draft." },
      { name: "review", instructions: "Review in French." },
    ],
  });
  await using wb = await startWorkbenchProcess({ home: home.path, cwd: cwd.path });
  const res = await fetch(`${wb.url}/api/harnesses/steered/runs?stream=true`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ input: "Look around" }),
  });
  const sse = new SseReader(res);
  try {
    const [accepted] = await sse.until(() => true, "run_accepted");
    const runId: string = accepted!.data.run_id;
    await sse.until((f) => f.data?.type === "model_call", "the first model call");
    const base = `/api/runs/${runId}`;
    let kept = "";

    await t.step("messages: queue (201), edit by body and by path, delete by query", async () => {
      const a = await call(wb, "POST", `${base}/messages`, { text: "Answer in English." });
      assert.equal(a.status, 201, JSON.stringify(a.json));
      const first = a.json.data.message;
      assert.match(first.id, /^msg_[0-9A-Z]{26}$/);
      assert.deepEqual(
        [first.run_id, first.status, first.delivered_turn],
        [runId, "queued", null],
      );
      const b = await call(wb, "POST", `${base}/messages`, { text: "Drop me." });
      const edited = await call(wb, "PATCH", `${base}/messages`, {
        id: first.id,
        text: "Answer in French.",
      });
      assert.equal(edited.json.data.message.text, "Answer in French.");
      const byPath = await call(wb, "PATCH", `${base}/messages/${first.id}`, {
        text: "Answer in French, please.",
      });
      assert.equal(byPath.json.data.message.text, "Answer in French, please.");
      const deleted = await call(
        wb,
        "DELETE",
        `${base}/messages?id=${b.json.data.message.id}`,
      );
      assert.deepEqual(deleted.json.data, { deleted: true });
      const list = await call(wb, "GET", `${base}/messages`);
      assert.deepEqual(
        list.json.data.messages.map((m: Json) => [m.text, m.status]),
        [["Answer in French, please.", "queued"]],
      );
      const one = await call(wb, "GET", `${base}/messages/${first.id}`);
      assert.equal(one.json.data.message.id, first.id);
      kept = first.id;
      assertError(await call(wb, "POST", `${base}/messages`, { text: "  " }), 400, "bad_input");
      assertError(await call(wb, "POST", `${base}/messages`, { txt: "x" }), 400, "bad_input");
      assertError(await call(wb, "DELETE", `${base}/messages/msg_nope`), 404, "not_found");
    });

    await t.step("model and playbook: controls, and the refusals", async () => {
      const bad = await call(wb, "POST", `${base}/model`, {
        model: { provider: "openai-compatible", name: "x", base_url: "http://127.0.0.1:9/v1" },
      });
      assertError(bad, 400, "bad_input");
      assert.match(bad.json.error.message, /base_url .* is not one this harness names/);
      assertError(await call(wb, "POST", `${base}/model`, { model: "nope:x" }), 400, "bad_input");
      const model = await call(wb, "POST", `${base}/model`, { model: "scripted:second" });
      assert.equal(model.status, 200, JSON.stringify(model.json));
      assert.deepEqual(
        [model.json.data.control.kind, model.json.data.control.status],
        ["model", "queued"],
      );
      const unknown = await call(wb, "POST", `${base}/playbook`, { name: "nope" });
      assertError(unknown, 400, "bad_input");
      assert.match(unknown.json.error.message, /playbooks: draft, review/);
      const mode = await call(wb, "POST", `${base}/playbook`, { name: "review" });
      assert.equal(mode.json.data.control.kind, "playbook");
      const view = await call(wb, "GET", `${base}?limit=0`);
      assert.deepEqual(view.json.data.live_state, {
        playbook: "draft",
        model: "scripted:test-script",
        playbooks: ["draft", "review"],
      });
      const runs = await call(wb, "GET", "/api/harnesses/steered/runs");
      assert.deepEqual(runs.json.data.runs[0].live_state?.playbook, "draft");
    });

    await t.step(
      "at the boundary: delivered is read-only (409), the mode and model apply",
      async () => {
        await sse.until((f) => f.data?.type === "steering_delivered", "the delivery");
        await sse.until((f) => f.data?.type === "model_call", "the second model call");
        const patched = await call(wb, "PATCH", `${base}/messages/${kept}`, { text: "late" });
        assertError(patched, 409, "conflict");
        assert.match(patched.json.error.message, /was delivered/);
        const one = await call(wb, "GET", `${base}/messages/${kept}`);
        assert.deepEqual(
          [one.json.data.message.status, one.json.data.message.delivered_turn],
          ["delivered", 2],
        );
        const view = await call(wb, "GET", `${base}?limit=0`);
        assert.deepEqual(
          [view.json.data.live_state.playbook, view.json.data.live_state.model],
          ["review", "scripted:second"],
        );
      },
    );

    await t.step(
      "after the end: controls are 409, the messages are read from the journal",
      async () => {
        const rest = await sse.rest();
        assert.equal(rest.at(-1)!.event, "run_result");
        assert.equal(rest.at(-1)!.data.output, "Fini.");
        assertError(await call(wb, "POST", `${base}/messages`, { text: "x" }), 409, "conflict");
        assertError(await call(wb, "POST", `${base}/stop`), 409, "conflict");
        assertError(await call(wb, "POST", `${base}/playbook`, { name: "draft" }), 409, "conflict");
        const list = await call(wb, "GET", `${base}/messages`);
        assert.deepEqual(
          list.json.data.messages.map((m: Json) => [m.id, m.text, m.status, m.delivered_turn]),
          [[kept, "Answer in French, please.", "delivered", 2]],
        );
        const unknown = "/api/runs/run_01ZZZZZZZZZZZZZZZZZZZZZZZZ";
        assertError(await call(wb, "POST", `${unknown}/messages`, { text: "x" }), 404, "not_found");
        assertError(
          await call(wb, "POST", `${unknown}/model`, { model: "scripted:x" }),
          404,
          "not_found",
        );
        const events = parseJournal(
          await Deno.readFile(join(dir, ".framework", "traces", `${runId}.jsonl`)),
        );
        const types = events.map((e) => e.type);
        assert.deepEqual(
          types.slice(types.indexOf("tool_result") + 1, types.lastIndexOf("model_call")),
          [
            "steering_delivered",
            "model_changed",
            "playbook_changed",
            "system_changed",
          ],
        );
        const byOf = events.filter((e) =>
          e.type.endsWith("_changed") && e.type !== "system_changed"
        )
          .map((e) => e.payload.by);
        assert.deepEqual(byOf, ["workbench", "workbench"]);
      },
    );
  } finally {
    await sse.close();
  }
});
