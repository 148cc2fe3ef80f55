/**
 * The copilot steers a live run it started: one chat turn starts a slow target run without waiting,
 * the next tells it to answer in French, and the target's journal shows the steering delivered at
 * its next turn boundary. A run the conversation did not start is refused.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { parseJournal } from "../../lib/journal/verify.ts";
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
): Promise<Frame[]> {
  const res = await fetch(`${wb.url}/api/conversations/${conversationId}/messages`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ message, ...(selection ? { selection } : {}) }),
  });
  assert.equal(res.status, 200);
  return await new SseReader(res).rest();
}

function toolResult(frames: Frame[]): Json {
  const message = frames.find((f) => f.event === "message")!.data.message;
  const part = message.parts.find((p: Json) => p.type === "tool");
  return { ok: part.ok, result: part.result };
}

Deno.test("workbench copilot: steers a live target run it started", async () => {
  await using home = await tempDir("fw-wbs-home-");
  await using cwd = await tempDir("fw-wbs-cwd-");
  await using scripts = await tempDir("fw-wbs-script-");
  const dir = await writeHarness(join(cwd.path, "harnesses"), "slow", {
    model: scripted([{ text: "Hello.", delay_ms: 2500 }, { text: "Bonjour." }]),
  });
  const script = join(scripts.path, "copilot.yaml");
  await Deno.writeTextFile(
    script,
    JSON.stringify({
      scenarios: [
        {
          match: "KICKOFF",
          replies: [
            {
              tool_calls: [{
                name: "execute_run",
                arguments: { harness: "slow", input: "Greet me", wait: false },
              }],
            },
            { text: "Started." },
          ],
        },
        {
          match: "FRENCH",
          replies: [
            { tool_calls: [{ name: "steer_run", arguments: { text: "Answer in French." } }] },
            { text: "Told it." },
          ],
        },
        {
          match: "STRANGER",
          replies: [
            {
              tool_calls: [{
                name: "steer_run",
                arguments: { run_id: "run_01ZZZZZZZZZZZZZZZZZZZZZZZZ", text: "x" },
              }],
            },
            { text: "Could not." },
          ],
        },
      ],
    }),
  );
  await using wb = await startWorkbenchProcess({
    home: home.path,
    cwd: cwd.path,
    env: { FRAMEWORK_COPILOT_MODEL: `scripted:${script}` },
  });
  const conv = (await call(wb, "POST", "/api/conversations", {})).json.data.id;

  const started = toolResult(await chat(wb, conv, "KICKOFF run slow in the background"));
  assert.equal(started.ok, true, started.result);
  const { run_id: runId, status } = JSON.parse(started.result);
  assert.equal(status, "running");

  const told = toolResult(
    await chat(wb, conv, "FRENCH tell it to answer in French", {
      harness_id: "slow",
      run_id: runId,
    }),
  );
  assert.equal(told.ok, true, told.result);
  assert.equal(JSON.parse(told.result).message.status, "queued");

  const refused = toolResult(await chat(wb, conv, "STRANGER steer some other run"));
  assert.equal(refused.ok, false);
  assert.match(refused.result, /was not started in this conversation/);

  // The target run takes the message at its next boundary and answers again.
  let view: Json;
  for (let i = 0; i < 100; i++) {
    view = (await call(wb, "GET", `/api/runs/${runId}`)).json.data;
    if (!view.live) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(view.live, false);
  assert.equal(view.status, "success");
  const events = parseJournal(
    await Deno.readFile(join(dir, ".framework", "traces", `${runId}.jsonl`)),
  );
  const delivered = events.find((e) => e.type === "steering_delivered")!;
  assert.equal(delivered.payload.text, "Answer in French.");
  assert.equal(delivered.payload.turn, 2);
  assert.equal(events.at(-1)!.payload.output, "Bonjour.");
});
