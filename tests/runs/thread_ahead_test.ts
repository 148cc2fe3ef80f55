/**
 * What a run does once its end is recorded, while the disk writes it (`afterEnd`): it is called after
 * the hive holds the end and before the run is reported finished, and what it throws never changes
 * the run. A thread's turn uses it to make the next turn's history ahead; the history each turn is
 * given stays the thread's own, under a redaction too, and after a change of the history length.
 *
 * @module
 */

import assert from "node:assert/strict";
import { stringify } from "yaml";
import { openHive } from "../../lib/hive/open.ts";
import { getRun } from "../../lib/hive/runs.ts";
import { createThread } from "../../lib/hive/threads.ts";
import { createRunService, type Submission } from "../../lib/runs/service.ts";
import { submitToThread } from "../../lib/runs/threads.ts";
import { storeHome } from "../helpers/hive_stores.ts";

/** A harness that answers `answer`, with the spec's other fields added (and a way to write it again). */
async function talker(home: string, more: Record<string, unknown> = {}) {
  const dir = `${home}/talker`;
  await Deno.mkdir(dir, { recursive: true });
  const write = (extra: Record<string, unknown>) =>
    Deno.writeTextFile(
      `${dir}/harness.yaml`,
      stringify({
        id: "talker",
        model: { provider: "scripted", replies: [{ text: "answer" }] },
        ...extra,
      }),
    );
  await write(more);
  return { id: "talker", dir: await Deno.realPath(dir), write };
}

/** The messages of a journal's first model call, as `role:content`. */
async function firstCall(tracePath: string): Promise<string[]> {
  const lines = (await Deno.readTextFile(tracePath)).trim().split("\n").map((l) => JSON.parse(l));
  const call = lines.find((e) => e.type === "model_call");
  return call.payload.append.map((m: { role: string; content: string }) =>
    `${m.role}:${m.content}`
  );
}

Deno.test("afterEnd is called once the hive holds the run's end, before the run is reported", async () => {
  await using home = await storeHome("sqlite");
  const h = await talker(home.path);
  const runs = createRunService();
  const seen: string[] = [];
  let reported = false;
  const submission = await runs.submit(h.dir, { input: "hi" }, {
    aroundLaunch: (launch) =>
      launch({
        afterEnd: () => {
          const row = getRun(openHive(), h, submission.run_id);
          seen.push(`${row?.status} reported=${reported}`);
        },
      }),
  });
  const result = await submission.result;
  reported = true;
  assert.equal(result.status, "success");
  assert.deepEqual(seen, ["success reported=false"]);
  await runs.close();
});

Deno.test("afterEnd: what it throws is logged, and the run is reported as it ended", async () => {
  await using home = await storeHome("sqlite");
  const h = await talker(home.path);
  const runs = createRunService();
  const logged: string[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => void logged.push(args.join(" "));
  try {
    const submission = await runs.submit(h.dir, { input: "hi" }, {
      aroundLaunch: (launch) =>
        launch({
          afterEnd: () => {
            throw new Error("ahead failed");
          },
        }),
    });
    const result = await submission.result;
    assert.equal(result.status, "success");
    assert.equal(result.output, "answer");
    assert.equal(getRun(openHive(), h, result.run_id)?.status, "success");
    assert.ok(
      logged.some((l) => l.includes(result.run_id) && l.includes("ahead failed")),
      logged.join("\n"),
    );
  } finally {
    console.error = original;
  }
  await runs.close();
});

Deno.test("a thread's history made ahead is the thread's own: redacted, and as long as the spec says when the turn starts", async () => {
  await using home = await storeHome("sqlite");
  const h = await talker(home.path, { logging: { redact: { patterns: ["sk-[a-z0-9]+"] } } });
  const db = openHive();
  const runs = createRunService();
  const id = createThread(db, h, "cli", {}).thread_id;
  const send = async (input: string) => {
    const sent = await submitToThread(db, runs, h.dir, h, id, { input }, { viewer: null });
    assert.equal(sent.kind, "run");
    const run = (sent as { submission: Submission }).submission;
    await run.result;
    return (await run.started).trace_path;
  };
  await send("my key is sk-abc1");
  await send("q2");
  // The third turn's history was made as the second ended, from the first two (redacted as the
  // journal redacts: one compiled redaction per spec snapshot).
  assert.deepEqual(await firstCall(await send("q3 sk-zzz9")), [
    "user:my key is [REDACTED]",
    "assistant:answer",
    "user:q2",
    "assistant:answer",
    "user:q3 [REDACTED]",
  ]);
  assert.deepEqual(await firstCall(await send("q4")), [
    "user:my key is [REDACTED]",
    "assistant:answer",
    "user:q2",
    "assistant:answer",
    "user:q3 [REDACTED]",
    "assistant:answer",
    "user:q4",
  ]);
  // The history length changed after the last turn ended (its next history was made for 20 turns):
  // the next turn is given the spec's two.
  await h.write({
    logging: { redact: { patterns: ["sk-[a-z0-9]+"] } },
    limits: { thread_history_turns: 2 },
  });
  assert.deepEqual(await firstCall(await send("q5")), [
    "user:q3 [REDACTED]",
    "assistant:answer",
    "user:q4",
    "assistant:answer",
    "user:q5",
  ]);
  // And the redaction itself changed: the history is journaled under the new one.
  await h.write({
    logging: { redact: { patterns: ["q[0-9]"] } },
    limits: { thread_history_turns: 2 },
  });
  assert.deepEqual(await firstCall(await send("q6")), [
    "user:[REDACTED]",
    "assistant:answer",
    "user:[REDACTED]",
    "assistant:answer",
    "user:[REDACTED]",
  ]);
  await runs.close();
});
