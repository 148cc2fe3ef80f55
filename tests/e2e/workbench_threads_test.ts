/**
 * The workbench's five thread routes (docs/workbench-api.md, Threads) against a real workbench
 * process: a harness's threads made (owned by `workbench`, metadata checked) and listed a page at a
 * time; a thread read with its turns; a turn run as JSON (its model given the earlier turns) and over
 * SSE; a busy thread refused (409 naming its run) or steered (202); deleted, its runs staying in
 * the Runs list, which gives the threads of a page's runs. A thread of a folder the workbench does
 * not offer (a copy that kept the id, run by the CLI on the same hive) is not found, as an unknown
 * one: the workbench neither shows, runs nor deletes it.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { verifyJournal } from "../../lib/journal/verify.ts";
import { runCli } from "../helpers/cli.ts";
import { jsonOk } from "../helpers/cli_assert.ts";
import { readSse } from "../helpers/control_plane.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { SseReader } from "../helpers/sse_reader.ts";
import { tempDir } from "../helpers/temp.ts";
import { startWorkbenchProcess, workbenchCall } from "../helpers/workbench.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** Answers by the input's first word; `slow…` takes its time, then answers the steering. */
function model() {
  return scripted([{ text: "Say one or two." }], {
    scenarios: [
      { match: "^one", replies: [{ text: "Answer one." }] },
      { match: "^two", replies: [{ text: "Answer two." }] },
      {
        match: "^slow",
        replies: [{ text: "Slow answer.", delay_ms: 1500 }, { text: "Steered answer." }],
      },
    ],
  });
}

Deno.test("workbench thread routes: make, list, read, run (JSON, SSE, busy), delete", async (t) => {
  await using home = await tempDir("fw-wbthr-home-");
  await using cwd = await tempDir("fw-wbthr-cwd-");
  await using elsewhere = await tempDir("fw-wbthr-out-");
  const dir = await writeHarness(join(cwd.path, "harnesses"), "talker", { model: model() });
  // A copy that kept the id: a duplicate the workbench does not offer (its runs are its own).
  const copy = await writeHarness(elsewhere.path, "talker", { model: model() });
  await using wb = await startWorkbenchProcess({ home: home.path, cwd: cwd.path });
  const call = (method: string, path: string, body?: unknown) =>
    workbenchCall(wb, method, path, body);
  let thread: Json, first: Json, second: Json;

  await t.step("POST /api/harnesses/{id}/threads makes a thread owned by workbench", async () => {
    const made = await call("POST", "/api/harnesses/talker/threads", {
      metadata: { customer: "c-42" },
    });
    assert.equal(made.status, 201, JSON.stringify(made.json));
    thread = made.json.data;
    assert.match(thread.thread_id, /^thr_[0-9A-Z]{26}$/);
    assert.deepEqual(
      [thread.harness_id, thread.owner, thread.metadata, thread.turns, thread.live_run_id],
      ["talker", "workbench", { customer: "c-42" }, 0, null],
    );
    const bare = await fetch(`${wb.url}/api/harnesses/talker/threads`, { method: "POST" });
    assert.equal(bare.status, 201, "no body is an empty request");
    await bare.body?.cancel();
    const bad = await call("POST", "/api/harnesses/talker/threads", { metadata: [1] });
    assert.equal(bad.status, 400);
    assert.equal(bad.json.error.kind, "bad_input");
    const extra = await call("POST", "/api/harnesses/talker/threads", { owner: "someone" });
    assert.equal(extra.status, 400, "a thread's owner is never the caller's word");
    assert.equal((await call("POST", "/api/harnesses/nobody/threads", {})).status, 404);
  });

  await t.step("POST /api/threads/{id}/run: two turns, the second given the first", async () => {
    const path = `/api/threads/${thread.thread_id}/run`;
    first = (await call("POST", path, { input: "one: hello" })).json.data;
    assert.equal(first.status, "success");
    assert.equal(first.thread_id, thread.thread_id);
    const res = await fetch(`${wb.url}${path}?stream=true`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input: "two: and now?" }),
    });
    const frames = await readSse(res);
    assert.equal(frames[0]!.event, "run_accepted");
    second = frames.at(-1)!.data;
    assert.equal(frames.at(-1)!.event, "run_result");
    assert.equal(second.output, "Answer two.");
    assert.equal(second.thread_id, thread.thread_id);
    const view = (await call("GET", `/api/runs/${second.run_id}`)).json.data;
    const modelCall = view.events.find((e: Json) => e.type === "model_call");
    assert.deepEqual(modelCall.payload.append, [
      { role: "user", content: "one: hello" },
      { role: "assistant", content: "Answer one." },
      { role: "user", content: "two: and now?" },
    ]);
    const unknown = await call("POST", "/api/threads/thr_01JUNKNOWN0000000000000000/run", {
      input: "one",
    });
    assert.equal(unknown.status, 404);
    const badBody = await call("POST", path, { input: "one", input_file: "../x" });
    assert.equal(badBody.status, 400);
  });

  await t.step("GET /api/threads/{id} and the harness's list, a page at a time", async () => {
    const shown = (await call("GET", `/api/threads/${thread.thread_id}`)).json.data;
    assert.equal(shown.turns, 2);
    assert.deepEqual(
      shown.runs.map((r: Json) => [r.run_id, r.status, r.input, r.output]),
      [
        [first.run_id, "success", "one: hello", "Answer one."],
        [second.run_id, "success", "two: and now?", "Answer two."],
      ],
    );
    const page1 = (await call("GET", "/api/harnesses/talker/threads?limit=1")).json.data;
    assert.equal(page1.threads.length, 1);
    assert.ok(page1.next_cursor);
    const page2 = (await call(
      "GET",
      `/api/harnesses/talker/threads?limit=1&cursor=${page1.next_cursor}`,
    )).json.data;
    assert.equal(page2.threads.length, 1);
    assert.equal(page2.next_cursor, null);
    const all = [...page1.threads, ...page2.threads].map((x: Json) => x.thread_id);
    assert.ok(all.includes(thread.thread_id));
    assert.equal((await call("GET", "/api/harnesses/talker/threads?limit=0")).status, 400);
    assert.equal((await call("GET", "/api/threads/thr_01JUNKNOWN0000000000000000")).status, 404);
  });

  await t.step("a busy thread: 409 naming its run, or busy=steer reaches that run", async () => {
    const path = `/api/threads/${thread.thread_id}/run`;
    const res = await fetch(`${wb.url}${path}?stream=true`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input: "slow: take your time" }),
    });
    const sse = new SseReader(res);
    try {
      const [accepted] = await sse.until(() => true, "run_accepted");
      const runId = accepted!.data.run_id;
      await sse.until((f) => f.event === "trace" && f.data.type === "model_call", "model call");
      const busy = await call("POST", path, { input: "one" });
      assert.equal(busy.status, 409, JSON.stringify(busy.json));
      assert.equal(busy.json.error.details.run_id, runId);
      assert.equal(
        (await call("GET", `/api/threads/${thread.thread_id}`)).json.data.live_run_id,
        runId,
      );
      const steered = await call("POST", `${path}?busy=steer`, { input: "Be brief." });
      assert.equal(steered.status, 202, JSON.stringify(steered.json));
      assert.equal(steered.json.data.run_id, runId);
      const result = (await sse.rest()).find((f) => f.event === "run_result")!.data;
      assert.equal(result.output, "Steered answer.");
      assert.equal((await call("POST", `${path}?busy=later`, { input: "one" })).status, 400);
    } finally {
      await sse.close();
    }
  });

  await t.step("the Runs list gives the threads of its page's runs", async () => {
    const plain = (await call("POST", "/api/harnesses/talker/runs", { input: "one: alone" }))
      .json.data;
    const listed = (await call("GET", "/api/harnesses/talker/runs")).json.data;
    assert.equal(listed.runs.length, 4);
    assert.equal(listed.runs[0].run_id, plain.run_id);
    assert.equal(listed.runs[0].thread_id, null);
    assert.ok(listed.runs.slice(1).every((r: Json) => r.thread_id === thread.thread_id));
    assert.deepEqual(listed.threads.map((x: Json) => [x.thread_id, x.turns]), [
      [thread.thread_id, 3],
    ]);
    const only = (await call("GET", "/api/harnesses/talker/runs?limit=1")).json.data;
    assert.deepEqual(only.threads, [], "a page of no thread's run names no thread");
  });

  await t.step("a thread of a copy that kept the id (not offered) is not found", async () => {
    const cli = jsonOk(
      await runCli(
        ["run", copy, "--thread", "new", "--input", "one: hi", "--approve", "--json"],
        {
          home: home.path,
        },
      ),
    );
    for (const [method, suffix] of [["GET", ""], ["POST", "/run"], ["DELETE", ""]] as const) {
      const r = await call(
        method,
        `/api/threads/${cli.thread_id}${suffix}`,
        method === "POST" ? { input: "two" } : undefined,
      );
      assert.equal(r.status, 404, `${method} ${suffix}: ${JSON.stringify(r.json)}`);
    }
    const kept = jsonOk(
      await runCli(["threads", copy, "show", cli.thread_id, "--json"], {
        home: home.path,
      }),
    );
    assert.equal(kept.turns, 1, "the workbench neither ran nor deleted it");
  });

  await t.step("DELETE /api/threads/{id}: gone, its runs stay", async () => {
    const gone = await call("DELETE", `/api/threads/${thread.thread_id}`);
    assert.deepEqual(gone.json, { ok: true, data: { deleted: true } });
    assert.equal((await call("GET", `/api/threads/${thread.thread_id}`)).status, 404);
    assert.equal((await call("DELETE", `/api/threads/${thread.thread_id}`)).status, 404);
    const listed = (await call("GET", "/api/harnesses/talker/runs")).json.data;
    assert.equal(listed.runs.length, 4, "the runs stay");
    assert.equal(listed.runs[1].thread_id, thread.thread_id, "and keep their thread's id");
    assert.deepEqual(listed.threads, []);
    const trace = await call("GET", `/api/runs/${first.run_id}`);
    assert.equal(trace.json.data.integrity.ok, true);
    const journal = await Deno.readFile(join(dir, ".framework/traces", `${first.run_id}.jsonl`));
    assert.equal(verifyJournal(journal).ok, true, "its journal stays whole");
  });
});
