/**
 * `runSetFrames` with runs whose frames the test releases one by one: frames interleave as they come,
 * each with the cursor of every run; a run is let go after its result; an ended cursor is never
 * followed; the client going away ends the stream at once and lets go of every run.
 *
 * @module
 */

import assert from "node:assert/strict";
import type { RunFrame } from "../../lib/runs/frames.ts";
import { readRunSet, runSetFrames, type RunSetSource } from "../../lib/runs/run_set.ts";
import type { RunResult } from "../../lib/run_types.ts";

/** A run whose frames the test releases; it records whether it was let go. */
function controlledRun(runId: string) {
  const queue: RunFrame[] = [];
  let waiting: ((r: IteratorResult<RunFrame>) => void) | null = null;
  const state = { returned: false, opened: 0 };
  const iterator: AsyncIterator<RunFrame> = {
    next() {
      const f = queue.shift();
      if (f) return Promise.resolve({ value: f, done: false });
      return new Promise((resolve) => waiting = resolve);
    },
    return() {
      state.returned = true;
      waiting?.({ value: undefined, done: true });
      return Promise.resolve({ value: undefined, done: true });
    },
  };
  return {
    state,
    frames: () => {
      state.opened += 1;
      return { [Symbol.asyncIterator]: () => iterator };
    },
    send(frame: RunFrame) {
      if (waiting) {
        const w = waiting;
        waiting = null;
        w({ value: frame, done: false });
      } else queue.push(frame);
    },
    trace(seq: number) {
      this.send({ frame: "trace", seq, ts: "t", type: "model_call", payload: {}, hash: "h" });
    },
    result() {
      this.send({ frame: "run_result", ...({ run_id: runId, status: "success" } as RunResult) });
    },
  };
}

function source(run: ReturnType<typeof controlledRun>, runId: string, after = 0): RunSetSource {
  return { cursor: { run_id: runId, after, ended: false }, frames: run.frames };
}

Deno.test("runSetFrames() interleaves runs as they come, with every run's cursor", async () => {
  const a = controlledRun("run_a");
  const b = controlledRun("run_b");
  const stream = runSetFrames([source(a, "run_a", 2), source(b, "run_b")]);
  // A run's own run_accepted is not passed on: the client named the run itself.
  a.send({ frame: "run_accepted", run_id: "run_a", harness_id: "h" });
  b.trace(1);
  const first = (await stream.next()).value!;
  assert.deepEqual([first.frame, first.run_id, first.cursor], ["trace", "run_b", "2,1"]);
  a.trace(3);
  b.trace(2);
  const order = [(await stream.next()).value!, (await stream.next()).value!];
  assert.deepEqual(order.map((f) => [f.run_id, f.cursor]), [["run_a", "3,1"], ["run_b", "3,2"]]);
});

Deno.test("runSetFrames() drops a run after its result and ends with the last", async () => {
  const a = controlledRun("run_a");
  const b = controlledRun("run_b");
  const stream = runSetFrames([source(a, "run_a", 2), source(b, "run_b")]);
  a.trace(3);
  let f = (await stream.next()).value!;
  assert.equal(f.frame, "trace");
  assert.equal(f.run_id, "run_a");
  assert.equal(f.cursor, "3,0");
  b.trace(1);
  f = (await stream.next()).value!;
  assert.equal(f.cursor, "3,1");
  a.result();
  f = (await stream.next()).value!;
  assert.equal(f.frame, "run_result");
  assert.equal(f.cursor, "-,1");
  assert.equal(a.state.returned, true, "a is let go after its result");
  assert.equal(b.state.returned, false);
  b.result();
  assert.equal((await stream.next()).value!.cursor, "-,-");
  assert.equal((await stream.next()).done, true);
});

Deno.test("runSetFrames() never opens a run whose result the client has", async () => {
  const a = controlledRun("run_a");
  const b = controlledRun("run_b");
  const stream = runSetFrames([
    { cursor: { run_id: "run_a", after: 7, ended: true }, frames: a.frames },
    source(b, "run_b"),
  ]);
  b.result();
  assert.equal((await stream.next()).value!.cursor, "-,-");
  assert.equal((await stream.next()).done, true);
  assert.equal(a.state.opened, 0);
});

Deno.test("runSetFrames() ends at once when the client goes away, letting go of every run", async () => {
  const a = controlledRun("run_a");
  const b = controlledRun("run_b");
  const gone = new AbortController();
  const stream = runSetFrames([source(a, "run_a"), source(b, "run_b")], gone.signal);
  const pending = stream.next();
  gone.abort();
  assert.equal((await pending).done, true);
  assert.deepEqual([a.state.returned, b.state.returned], [true, true]);
});

Deno.test("readRunSet() reads runs, seqs and a Last-Event-ID cursor", async (t) => {
  await t.step("runs with and without a seq", () => {
    assert.deepEqual(readRunSet("run_a, run_b:12", undefined), [
      { run_id: "run_a", after: 0, ended: false },
      { run_id: "run_b", after: 12, ended: false },
    ]);
  });
  await t.step("the cursor overrides the seqs, and marks ended runs", () => {
    assert.deepEqual(readRunSet("run_a,run_b:12", "3,-"), [
      { run_id: "run_a", after: 3, ended: false },
      { run_id: "run_b", after: 12, ended: true },
    ]);
  });
  await t.step("bad input says what to send", () => {
    for (
      const [runs, last, message] of [
        [undefined, undefined, /Name the runs to follow: \?runs=/],
        ["run_a:1:2", undefined, /Not a run to follow: "run_a:1:2"/],
        ["run_a:-1", undefined, /Not a run to follow/],
        ["../etc", undefined, /Not a run to follow/],
        ["run_a,run_a", undefined, /named twice/],
        ["run_a,run_b", "4", /not a cursor of these 2 runs/],
        ["run_a", "x", /not a cursor/],
      ] as const
    ) {
      assert.throws(
        () => readRunSet(runs, last),
        (err: Error & { kind?: string }) => err.kind === "bad_input" && message.test(err.message),
        `${runs} / ${last}`,
      );
    }
  });
});
