/**
 * `GET /api/runs/events?runs=…` of the real `framework workbench` process: the events of several
 * runs over one stream, each frame naming its run, each run dropped after its result and the stream
 * ended with the last one; resumed by `Last-Event-ID` without a frame lost or repeated; bad requests
 * answered with what to send.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir } from "../helpers/temp.ts";
import { type Frame, SseReader } from "../helpers/sse_reader.ts";
import { startWorkbenchProcess } from "../helpers/workbench.ts";

const UNKNOWN_RUN = "run_01ZZZZZZZZZZZZZZZZZZZZZZZZ";

Deno.test("GET /api/runs/events: several runs over one stream, resumable, ended with the runs", async (t) => {
  await using home = await tempDir("fw-rs-home-");
  await using cwd = await tempDir("fw-rs-cwd-");
  await writeHarness(join(cwd.path, "harnesses"), "paced", {
    name: "Paced",
    model: scripted([
      { tool_calls: [{ name: "list_files", arguments: {} }], delay_ms: 300 },
      { text: "done", delay_ms: 1200 },
    ]),
    tools: [{ builtin: "list_files" }],
  });
  await using wb = await startWorkbenchProcess({ home: home.path, cwd: cwd.path });

  /** Starts a run and lets go of its own stream once it is accepted. */
  const start = async (input: string) => {
    const res = await fetch(`${wb.url}/api/harnesses/paced/runs?stream=true`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ input }),
    });
    const sse = new SseReader(res);
    const [accepted] = await sse.until((f) => f.event === "run_accepted", "run_accepted");
    await sse.close();
    return accepted!.data.run_id as string;
  };
  const open = (query: string, headers: Record<string, string> = {}) =>
    fetch(`${wb.url}/api/runs/events?${query}`, { headers });

  const ids = [await start("one"), await start("two"), await start("three")];
  let all: Frame[] = [];

  await t.step("one stream carries every run's frames, each naming its run", async () => {
    const res = await open(`runs=${ids.join(",")}`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^text\/event-stream/);
    all = await new SseReader(res).rest();
    assert.ok(all.every((f) => f.event === "trace" || f.event === "run_result"), "no other frame");
    for (const id of ids) {
      const mine = all.filter((f) => f.data.run_id === id);
      const seqs = mine.filter((f) => f.event === "trace").map((f) => f.data.seq);
      assert.deepEqual(seqs, seqs.map((_, i) => i + 1), `${id}: every event once, in order`);
      assert.equal(mine.at(-1)!.event, "run_result", `${id} ends with its result`);
      assert.equal(mine.filter((f) => f.event === "run_result").length, 1);
      assert.equal(mine.at(-1)!.data.status, "success");
      assert.equal(mine.at(-2)!.data.type, "run_finished");
    }
    // The cursor: the last seq of each run in the order asked, "-" once its result was sent.
    const last = all.at(-1)!;
    assert.equal(last.event, "run_result");
    assert.equal(last.id, "-,-,-");
    const firstResult = all.findIndex((f) => f.event === "run_result");
    const ended = ids.indexOf(all[firstResult]!.data.run_id);
    assert.equal(all[firstResult]!.id!.split(",")[ended], "-");
  });

  await t.step("Last-Event-ID resumes: nothing lost, nothing repeated", async () => {
    const cut = Math.floor(all.length / 2);
    const res = await open(`runs=${ids.join(",")}`, { "last-event-id": all[cut - 1]!.id! });
    const rest = await new SseReader(res).rest();
    const key = (f: Frame) => `${f.event} ${f.data.run_id} ${f.data.seq ?? ""}`;
    assert.deepEqual(
      [...all.slice(0, cut), ...rest].map(key).sort(),
      all.map(key).sort(),
    );
    // A seq in runs= starts a run after it; an ended cursor is not followed again.
    const after = await new SseReader(await open(`runs=${ids[0]}:3`)).rest();
    assert.equal(after[0]!.data.seq, 4);
    const none = await new SseReader(await open(`runs=${ids[0]}`, { "last-event-id": "-" }))
      .rest();
    assert.deepEqual(none, []);
  });

  await t.step("a live run is followed as it goes and dropped when it ends", async () => {
    const live = await start("four");
    const sse = new SseReader(await open(`runs=${live},${ids[0]}:999`));
    const frames = await sse.rest();
    const results = frames.filter((f) => f.event === "run_result").map((f) => f.data.run_id);
    assert.deepEqual(results.sort(), [live, ids[0]].sort());
    assert.ok(frames.some((f) => f.data.run_id === live && f.data.type === "tool_result"));
    assert.equal(frames.at(-1)!.id, "-,-");
  });

  await t.step("bad requests say what to send", async () => {
    for (
      const [query, headers, status, kind] of [
        ["", {}, 400, "bad_input"],
        ["runs=run_a:x", {}, 400, "bad_input"],
        [`runs=${ids[0]},${ids[0]}`, {}, 400, "bad_input"],
        [`runs=${ids.join(",")}`, { "last-event-id": "1,2" }, 400, "bad_input"],
        [
          `runs=${Array.from({ length: 101 }, (_, i) => `run_${i}`).join(",")}`,
          {},
          400,
          "bad_input",
        ],
        [`runs=${ids[0]},${UNKNOWN_RUN}`, {}, 404, "not_found"],
      ] as const
    ) {
      const res = await open(query, headers);
      const json = await res.json();
      assert.equal(res.status, status, `${query}: ${JSON.stringify(json)}`);
      assert.equal(json.error.kind, kind);
      assert.match(json.error.message, /run/i);
    }
  });
});
