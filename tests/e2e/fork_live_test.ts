/**
 * Forking a run while it is still going, through the real workbench: only what the journal already
 * holds is copied (a model call not yet journalled cannot be a fork point), the fork resumes from
 * exactly that prefix, and the live run goes on to its end unharmed, its journal whole and verified.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { parseJournal, verifyJournal } from "../../lib/journal/verify.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { type Frame, SseReader } from "../helpers/sse_reader.ts";
import { tempDir } from "../helpers/temp.ts";
import { startWorkbenchProcess, workbenchCall as call } from "../helpers/workbench.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

Deno.test("forks of a live run: the journalled prefix only, and the live run unharmed", async () => {
  await using home = await tempDir("fw-fkl-home-");
  await using cwd = await tempDir("fw-fkl-cwd-");
  const harnesses = join(cwd.path, "harnesses");
  const dir = await writeHarness(harnesses, "live", {
    model: scripted([
      { tool_calls: [{ name: "list_files", arguments: {} }] },
      // The second model call takes a while: the fork happens during it.
      { tool_calls: [{ name: "list_files", arguments: {} }], delay_ms: 1500 },
      { text: "done" },
    ]),
    tools: [{ builtin: "list_files" }],
  });
  await using wb = await startWorkbenchProcess({ home: home.path, cwd: cwd.path });
  const res = await fetch(`${wb.url}/api/harnesses/live/runs?stream=true`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ input: "go" }),
  });
  const sse = new SseReader(res);
  let streamed: Frame[] = [];
  try {
    const [accepted] = await sse.until(() => true, "run_accepted");
    const runId = accepted!.data.run_id;
    let calls = 0;
    streamed = await sse.until(
      (f) => f.event === "trace" && f.data.type === "model_call" && ++calls === 2,
      "the second model call",
    );
    const at = streamed.at(-1)!.data.seq;
    const journalled = (await call(wb, "GET", `/api/runs/${runId}`)).json.data;
    assert.equal(journalled.status, "running");

    // A model call the journal does not hold yet is no fork point.
    const ahead = await call(wb, "POST", `/api/runs/${runId}/fork`, { at: at + 3, name: "ahead" });
    assert.equal(ahead.status, 400, JSON.stringify(ahead.json));

    const forked = await call(wb, "POST", `/api/runs/${runId}/fork`, { at, name: "live-branch" });
    assert.equal(forked.status, 201, JSON.stringify(forked.json));
    assert.equal(forked.json.data.fork.reentry_seq, at);

    // The live run goes on to its end, every event streamed, its journal whole.
    const rest = await sse.rest();
    const result = rest.find((f) => f.event === "run_result")!.data;
    assert.equal(result.status, "success", JSON.stringify(result));
    assert.equal(result.output, "done");
    assert.equal(result.turns, 3);
    const journal = await Deno.readFile(join(dir, ".framework", "traces", `${runId}.jsonl`));
    assert.equal(verifyJournal(journal).ok, true);
    const parentEvents = parseJournal(journal);
    const traced = [...streamed, ...rest].filter((f) => f.event === "trace");
    assert.deepEqual(traced.map((f) => f.data.seq), parentEvents.map((e) => e.seq));

    // The fork holds the prefix before `at`: its block names the head of event at-1.
    const forkYaml = await Deno.readTextFile(join(harnesses, "live-branch", "harness.yaml"));
    assert.match(forkYaml, new RegExp(`head: ${parentEvents[at - 2]!.hash}`));
    const resumed = await fetch(`${wb.url}/api/harnesses/live-branch/resume?stream=true`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    assert.equal(resumed.status, 200);
    const frames = await new SseReader(resumed).rest();
    const done = frames.find((f) => f.event === "run_result")!.data;
    assert.equal(done.status, "success", JSON.stringify(done));
    const view: Json = (await call(wb, "GET", `/api/runs/${done.run_id}`)).json.data;
    const replayed = view.events.filter((e: Json) => e.type === "replayed");
    assert.deepEqual(
      replayed.map((e: Json) => [e.payload.original_seq, e.payload.original_type]),
      parentEvents.filter((e) => e.seq < at).map((e) => [e.seq, e.type]),
      "exactly the journalled prefix before the fork point is replayed",
    );
  } finally {
    await sse.close();
  }
});
