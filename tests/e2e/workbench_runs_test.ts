/**
 * Runs through the workbench API of the real `framework workbench` process: stopping a live run
 * (streamed, stopped mid model call, its journal closed and verified, a second stop refused, an
 * unknown run not found) and reading a run with and without `?limit=`.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { parseJournal, verifyJournal } from "../../lib/journal/verify.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir } from "../helpers/temp.ts";
import { type Frame, SseReader } from "../helpers/sse_reader.ts";
import { startWorkbenchProcess, workbenchCall } from "../helpers/workbench.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const call = workbenchCall;

function assertError(res: { status: number; json: Json }, status: number, kind: string) {
  assert.equal(res.status, status, JSON.stringify(res.json));
  assert.equal(res.json.ok, false);
  assert.equal(res.json.error.kind, kind);
  assert.equal(typeof res.json.error.message, "string");
}

const UNKNOWN_RUN = "run_01ZZZZZZZZZZZZZZZZZZZZZZZZ";

Deno.test("workbench runs: a live run is stopped, streamed to its end, journalled, and stopped only once", async (t) => {
  await using home = await tempDir("fw-wbr-home-");
  await using cwd = await tempDir("fw-wbr-cwd-");
  const dir = await writeHarness(join(cwd.path, "harnesses"), "slow", {
    name: "Slow",
    instructions: "Take your time.",
    model: scripted([
      // The first model call would answer only after 5 s: the run is stopped during it.
      { tool_calls: [{ name: "list_files", arguments: {} }], delay_ms: 5000 },
      { text: "Never reached." },
    ]),
    limits: { max_turns: 4, timeout_s: 60 },
    tools: [{ builtin: "list_files" }],
  });
  await using wb = await startWorkbenchProcess({ home: home.path, cwd: cwd.path });

  const res = await fetch(`${wb.url}/api/harnesses/slow/runs?stream=true`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ input: "List the files, slowly" }),
  });
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type") ?? "", /^text\/event-stream/);
  const sse = new SseReader(res);
  try {
    let runId = "";
    const streamed: Frame[] = [];

    await t.step(
      "the stream opens with run_accepted, then the events up to the model call",
      async () => {
        const [accepted] = await sse.until(() => true, "run_accepted");
        assert.equal(accepted!.event, "run_accepted");
        runId = accepted!.data.run_id;
        assert.match(runId, /^run_[0-9A-Z]{26}$/);
        assert.equal(accepted!.data.harness_id, "slow");
        const frames = await sse.until(
          (f) => f.event === "trace" && f.data.type === "model_call",
          "the model call",
        );
        assert.ok(frames.every((f) => f.event === "trace"), frames.map((f) => f.event).join(","));
        streamed.push(...frames);
        assert.equal(frames[0]!.data.type, "run_started");
      },
    );

    await t.step(
      "while it waits for the model it is live, running, and cannot be exported",
      async () => {
        const live = await call(wb, "GET", `/api/runs/${runId}`);
        assert.equal(live.status, 200, JSON.stringify(live.json));
        assert.equal(live.json.data.live, true);
        assert.equal(live.json.data.status, "running");
        assert.equal(live.json.data.harness_id, "slow");
        const exported = await call(wb, "GET", `/api/runs/${runId}/export`);
        assertError(exported, 409, "conflict");
      },
    );

    let stopResult: Json;
    await t.step(
      "POST /api/runs/{id}/stop {now: true} answers the control and ends the run at once",
      async () => {
        const stopped = await call(wb, "POST", `/api/runs/${runId}/stop`, { now: true });
        assert.equal(stopped.status, 200, JSON.stringify(stopped.json));
        assert.equal(stopped.json.ok, true);
        assert.match(stopped.json.data.control.id, /^ctl_[0-9A-Z]{26}$/);
        assert.equal(stopped.json.data.control.kind, "stop");
        assert.equal(stopped.json.data.control.status, "queued");
      },
    );

    await t.step("the stream ends with run_result: error, reason stopped", async () => {
      const rest = await sse.rest();
      const events = rest.map((f) => f.event);
      assert.equal(events.at(-1), "run_result", events.join(","));
      assert.ok(events.slice(0, -1).every((e) => e === "trace"), events.join(","));
      streamed.push(...rest.slice(0, -1));
      stopResult = rest.at(-1)!.data;
      assert.equal(streamed.at(-1)!.data.type, "run_finished");
      assert.equal(stopResult.run_id, runId);
      assert.equal(stopResult.harness_id, "slow");
      assert.equal(stopResult.status, "error");
      assert.equal(stopResult.failure_signature, "error:stopped");
      assert.equal(stopResult.error.reason, "stopped");
      assert.equal(stopResult.output, "");
      assert.equal(stopResult.turns, 1);
      assert.ok(
        stopResult.duration_ms < 5000,
        `stopped before the model answered: ${stopResult.duration_ms} ms`,
      );
    });

    await t.step(
      "the journal verifies and ends with run_finished; the stream carried it all",
      async () => {
        const bytes = await Deno.readFile(join(dir, ".framework", "traces", `${runId}.jsonl`));
        const integrity = verifyJournal(bytes);
        const events = parseJournal(bytes);
        assert.deepEqual(integrity, { ok: true, checked: events.length, broken_at: null });
        assert.deepEqual(events.map((e) => e.type), [
          "run_started",
          "model_call",
          "run_stopped",
          "run_finished",
        ]);
        assert.deepEqual(events[2]!.payload, { turn: 1, by: "workbench", now: true });
        const finished = events.at(-1)!;
        assert.equal(finished.payload.status, "error");
        assert.equal(finished.payload.failure_signature, "error:stopped");
        assert.deepEqual(finished.payload, stopResult);
        assert.deepEqual(
          streamed.map((f) => [f.id, f.data.seq, f.data.type, f.data.hash]),
          events.map((e) => [String(e.seq), e.seq, e.type, e.hash]),
          "one trace frame per journal event, in order",
        );

        const view = await call(wb, "GET", `/api/runs/${runId}`);
        assert.equal(view.status, 200);
        assert.equal(view.json.data.live, false);
        assert.equal(view.json.data.status, "error");
        assert.deepEqual(view.json.data.integrity, integrity);
        assert.equal(view.json.data.event_count, events.length);
        assert.equal(view.json.data.run.failure_signature, "error:stopped");
      },
    );

    await t.step("a second stop is a conflict; an unknown run is not found", async () => {
      const again = await call(wb, "POST", `/api/runs/${runId}/stop`);
      assertError(again, 409, "conflict");
      assert.match(again.json.error.message, /already ended/);
      assertError(await call(wb, "POST", `/api/runs/${UNKNOWN_RUN}/stop`), 404, "not_found");
      assertError(await call(wb, "POST", "/api/runs/not-a-run/stop"), 404, "not_found");
      // Nothing changed in the journal.
      const bytes = await Deno.readFile(join(dir, ".framework", "traces", `${runId}.jsonl`));
      assert.equal(parseJournal(bytes).filter((e) => e.type === "run_finished").length, 1);
    });
  } finally {
    await sse.close();
  }
});

Deno.test("workbench runs: GET /api/runs/{id} caps events with ?limit= and always counts them all", async (t) => {
  await using home = await tempDir("fw-wbr-home-");
  await using cwd = await tempDir("fw-wbr-cwd-");
  const dir = await writeHarness(
    join(cwd.path, "harnesses"),
    "lister",
    {
      name: "Lister",
      instructions: "List the files.",
      model: scripted([
        {
          tool_calls: [
            { name: "list_files", arguments: {} },
            { name: "list_files", arguments: { path: "workspace" } },
            { name: "file_read", arguments: { path: "workspace/note.txt" } },
          ],
        },
        { text: "Three looks." },
      ]),
      tools: [{ builtin: "list_files" }, { builtin: "file_read" }],
    },
    { "workspace/note.txt": "a note\n" },
  );
  await using wb = await startWorkbenchProcess({ home: home.path, cwd: cwd.path });

  const run = await call(wb, "POST", "/api/harnesses/lister/runs", { input: "What is there?" });
  assert.equal(run.status, 200, JSON.stringify(run.json));
  assert.equal(run.json.data.status, "success", JSON.stringify(run.json.data));
  const runId: string = run.json.data.run_id;
  const journal = parseJournal(
    await Deno.readFile(join(dir, ".framework", "traces", `${runId}.jsonl`)),
  );
  // run_started, 2 × (model_call, model_response), 3 × (tool_call, tool_result), run_finished.
  assert.equal(journal.length, 12);

  await t.step("no limit: every event", async () => {
    const all = await call(wb, "GET", `/api/runs/${runId}`);
    assert.equal(all.status, 200, JSON.stringify(all.json));
    const data = all.json.data;
    assert.equal(data.run_id, runId);
    assert.equal(data.harness_id, "lister");
    assert.equal(data.status, "success");
    assert.equal(data.live, false);
    assert.deepEqual(data.integrity, { ok: true, checked: 12, broken_at: null });
    assert.equal(data.event_count, 12);
    assert.deepEqual(data.events, JSON.parse(JSON.stringify(journal)));
    assert.equal(data.run.run_id, runId);
  });

  await t.step("limit=3: the first three events, and the full count", async () => {
    const three = await call(wb, "GET", `/api/runs/${runId}?limit=3`);
    assert.equal(three.status, 200, JSON.stringify(three.json));
    assert.equal(three.json.data.events.length, 3);
    assert.deepEqual(three.json.data.events.map((e: Json) => e.seq), [1, 2, 3]);
    assert.deepEqual(three.json.data.events, JSON.parse(JSON.stringify(journal.slice(0, 3))));
    assert.equal(three.json.data.event_count, 12);
    assert.deepEqual(three.json.data.integrity, { ok: true, checked: 12, broken_at: null });
  });

  await t.step("limit=0 and a limit above the count", async () => {
    const none = await call(wb, "GET", `/api/runs/${runId}?limit=0`);
    assert.equal(none.status, 200);
    assert.deepEqual(none.json.data.events, []);
    assert.equal(none.json.data.event_count, 12);
    const many = await call(wb, "GET", `/api/runs/${runId}?limit=1000`);
    assert.equal(many.status, 200);
    assert.equal(many.json.data.events.length, 12);
    assert.equal(many.json.data.event_count, 12);
  });

  await t.step("an empty limit= is no limit", async () => {
    const all = await call(wb, "GET", `/api/runs/${runId}?limit=`);
    assert.equal(all.status, 200, JSON.stringify(all.json));
    assert.equal(all.json.data.events.length, 12);
  });

  await t.step(
    "from= pages by seq: the same events as a whole read, the whole journal's verdict",
    async () => {
      const pages = [];
      for (let from = 1; from <= 12; from += 5) {
        const page = await call(wb, "GET", `/api/runs/${runId}?from=${from}&limit=5`);
        assert.equal(page.status, 200, JSON.stringify(page.json));
        assert.equal(page.json.data.event_count, 12);
        assert.deepEqual(page.json.data.integrity, { ok: true, checked: 12, broken_at: null });
        pages.push(...page.json.data.events);
      }
      assert.deepEqual(pages, journal);
      const past = await call(wb, "GET", `/api/runs/${runId}?from=13`);
      assert.deepEqual(past.json.data.events, []);
      for (const bad of ["0", "-1", "x"]) {
        const res = await call(wb, "GET", `/api/runs/${runId}?from=${bad}`);
        assertError(res, 400, "bad_input");
        assert.match(res.json.error.message, /from/);
      }
    },
  );

  await t.step(
    "limit=-1, abc, 1.5, 0x2, 1e1 and padded numbers are bad input; an unknown run is not found",
    async () => {
      for (const bad of ["-1", "abc", "1.5", "0x2", "1e1", "%202", "2%20"]) {
        const res = await call(wb, "GET", `/api/runs/${runId}?limit=${bad}`);
        assertError(res, 400, "bad_input");
        assert.match(res.json.error.message, /limit/);
      }
      assertError(await call(wb, "GET", `/api/runs/${UNKNOWN_RUN}`), 404, "not_found");
      assertError(await call(wb, "GET", `/api/runs/${UNKNOWN_RUN}?limit=3`), 404, "not_found");
    },
  );
});
