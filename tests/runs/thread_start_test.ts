/**
 * A thread's run takes its thread as it starts, through the run service: a message to a free thread
 * takes it in the transaction recording its run's start (two racing messages: the second is refused,
 * nothing of it recorded); a message waiting for a slot holds its thread while it waits; a new thread
 * is stored with its first run's start, or at once when that run waits, and a first message that
 * cannot be submitted leaves no thread behind. On both stores.
 *
 * @module
 */

import assert from "node:assert/strict";
import { stringify } from "yaml";
import { FrameworkError } from "../../lib/errors.ts";
import { openHive } from "../../lib/hive/open.ts";
import { createThread, getThread, listThreads, threadTurns } from "../../lib/hive/threads.ts";
import { createRunGate } from "../../lib/runs/capacity.ts";
import { createRunService, type Submission } from "../../lib/runs/service.ts";
import { startThread, submitToThread } from "../../lib/runs/threads.ts";
import { storeHome, STORES } from "../helpers/hive_stores.ts";

/** A harness whose model answers `slow` after 300 ms, anything else at once. */
async function talker(home: string) {
  const dir = `${home}/talker`;
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(
    `${dir}/harness.yaml`,
    stringify({
      id: "talker",
      model: {
        provider: "scripted",
        scenarios: [{ match: "^slow", replies: [{ text: "slow answer", delay_ms: 300 }] }],
        replies: [{ text: "answer" }],
      },
    }),
  );
  return { id: "talker", dir: await Deno.realPath(dir) };
}

/** The run a thread message became (never steered here). */
function runOf(sent: Awaited<ReturnType<typeof submitToThread>>): Submission {
  assert.equal(sent.kind, "run");
  return (sent as { submission: Submission }).submission;
}

const busy = (runId: string) => (e: unknown) =>
  e instanceof FrameworkError && e.kind === "conflict" && e.details.run_id === runId;

for (const store of STORES) {
  Deno.test(`thread runs take their thread as they start [${store}]`, async (t) => {
    await using home = await storeHome(store);
    const db = openHive();
    const h = await talker(home.path);

    await t.step(
      "two messages racing for a free thread: one runs, the other is refused",
      async () => {
        const runs = createRunService();
        const id = createThread(db, h, "k_alice", {}).thread_id;
        const send = () =>
          submitToThread(db, runs, h.dir, h, id, { input: "slow" }, { viewer: null });
        // Both find the thread free before either run starts: the start decides.
        const [a, b] = await Promise.allSettled([send(), send()]);
        const won = [a, b].filter((r) => r.status === "fulfilled");
        const lost = [a, b].filter((r) => r.status === "rejected");
        assert.deepEqual([won.length, lost.length], [1, 1]);
        const run = runOf(
          (won[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof send>>>).value,
        );
        assert.ok(
          busy(run.run_id)((lost[0] as PromiseRejectedResult).reason),
          "409 naming the run",
        );
        assert.equal(getThread(db, h, id, null).live_run_id, run.run_id);
        assert.equal((await run.result).output, "slow answer");
        const turns = threadTurns(db, id);
        assert.deepEqual(turns.map((x) => [x.run_id, x.output]), [[run.run_id, "slow answer"]]);
        assert.equal(getThread(db, h, id, null).live_run_id, null);
        await runs.close();
      },
    );

    await t.step("a message waiting for a slot holds its thread while it waits", async () => {
      const runs = createRunService({ gate: createRunGate({ maxConcurrent: 1, maxQueued: 4 }) });
      const blocker = await runs.submit(h.dir, { input: "slow" });
      const id = createThread(db, h, "k_alice", {}).thread_id;
      const queued = runOf(
        await submitToThread(db, runs, h.dir, h, id, { input: "hi" }, { viewer: null }),
      );
      assert.equal(queued.queued, true);
      assert.equal(getThread(db, h, id, null).live_run_id, queued.run_id);
      await assert.rejects(
        submitToThread(db, runs, h.dir, h, id, { input: "again" }, { viewer: null }),
        busy(queued.run_id),
      );
      await blocker.result;
      assert.equal((await queued.result).output, "answer");
      assert.deepEqual(threadTurns(db, id).map((x) => [x.input, x.output]), [["hi", "answer"]]);
      assert.equal(getThread(db, h, id, null).live_run_id, null);
      await runs.close();
    });

    await t.step("a new thread is stored with its first run's start, held by it", async () => {
      const runs = createRunService();
      const { thread, submission } = await startThread(
        db,
        runs,
        h.dir,
        h,
        {
          owner: "k_bob",
          metadata: { topic: "orders" },
        },
        { input: "slow" },
        {},
      );
      assert.equal(thread.live_run_id, submission.run_id);
      const stored = getThread(db, h, thread.thread_id, "k_bob");
      assert.deepEqual(stored, { ...thread, turns: 1, updated_at: stored.updated_at });
      await submission.result;
      assert.equal(getThread(db, h, thread.thread_id, null).live_run_id, null);
      await runs.close();
    });

    await t.step("a new thread whose first run waits for a slot is stored at once", async () => {
      const runs = createRunService({ gate: createRunGate({ maxConcurrent: 1, maxQueued: 4 }) });
      const blocker = await runs.submit(h.dir, { input: "slow" });
      const { thread, submission } = await startThread(
        db,
        runs,
        h.dir,
        h,
        {
          owner: "k_carol",
          metadata: {},
        },
        { input: "hi" },
        {},
      );
      assert.equal(submission.queued, true);
      const waiting = getThread(db, h, thread.thread_id, "k_carol");
      assert.deepEqual([waiting.live_run_id, waiting.turns], [submission.run_id, 0]);
      await blocker.result;
      assert.equal((await submission.result).output, "answer");
      assert.equal(getThread(db, h, thread.thread_id, null).turns, 1);
      await runs.close();
    });

    await t.step(
      "messages refused by a busy thread take no place in the queue; a thread not found neither",
      async () => {
        const runs = createRunService({ gate: createRunGate({ maxConcurrent: 1, maxQueued: 2 }) });
        const id = createThread(db, h, "k_erin", {}).thread_id;
        const going = runOf(
          await submitToThread(db, runs, h.dir, h, id, { input: "slow" }, { viewer: null }),
        );
        await going.started;
        // Three messages while its turn goes on: each is refused (409), none waits for a slot.
        for (let i = 0; i < 3; i++) {
          await assert.rejects(
            submitToThread(db, runs, h.dir, h, id, { input: "more" }, { viewer: null }),
            busy(going.run_id),
          );
        }
        await assert.rejects(
          submitToThread(db, runs, h.dir, h, "thr_unknown", { input: "x" }, { viewer: null }),
          (e: unknown) => e instanceof FrameworkError && e.kind === "not_found",
        );
        await assert.rejects(
          submitToThread(db, runs, h.dir, h, id, { input: "x" }, { viewer: "k_someone_else" }),
          (e: unknown) => e instanceof FrameworkError && e.kind === "not_found",
        );
        // The queue is still free for others.
        const other = await runs.submit(h.dir, { input: "plain" });
        assert.equal(other.queued, true);
        assert.equal((await other.result).output, "answer");
        assert.equal((await going.result).output, "slow answer");
        await runs.close();
      },
    );

    await t.step("a first message that cannot be submitted leaves no thread behind", async () => {
      const runs = createRunService();
      await assert.rejects(
        startThread(db, runs, h.dir, h, { owner: "k_dave", metadata: {} }, {
          input_file: "missing.txt",
        }, {}),
        (e: unknown) => e instanceof FrameworkError && e.kind === "bad_input",
      );
      assert.deepEqual(listThreads(db, h, "k_dave", { limit: 10 }).threads, []);
      await runs.close();
    });
  });
}
