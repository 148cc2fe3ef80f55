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
import {
  createThread,
  getThread,
  listThreads,
  lockThread,
  threadTurns,
  unlockThread,
} from "../../lib/hive/threads.ts";
import { statement } from "../../lib/sqlite/statements.ts";
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

/** The messages a run's first model call was given, from its journal. */
async function firstCall(tracePath: string): Promise<string[]> {
  const lines = (await Deno.readTextFile(tracePath)).trim().split("\n").map((l) => JSON.parse(l));
  const call = lines.find((e) => e.type === "model_call");
  return call.payload.append.map((m: { role: string; content: string }) =>
    `${m.role}:${m.content}`
  );
}

/** The journals in a harness's trace folder. */
async function journals(dir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const e of Deno.readDir(`${dir}/.framework/traces`)) {
    if (e.isFile && e.name.endsWith(".jsonl")) names.push(e.name);
  }
  return names.sort();
}

for (const store of STORES) {
  Deno.test(`a thread this process knows starts its turn without reading it first; one changed meanwhile is read [${store}]`, async (t) => {
    await using home = await storeHome(store);
    const db = openHive();
    const h = await talker(home.path);
    const runs = createRunService();
    const id = createThread(db, h, "k_alice", {}).thread_id;
    const send = async (input: string, viewer: string | null = null) => {
      const run = runOf(await submitToThread(db, runs, h.dir, h, id, { input }, { viewer }));
      await run.result;
      return (await run.started).trace_path;
    };
    const turnCount = () => getThread(db, h, id, null).turns;
    await send("q1");
    await send("q2");

    await t.step("a turn of another process: the history is read again, with it", async () => {
      const at = new Date().toISOString();
      const runId = `run_${crypto.randomUUID().replaceAll("-", "")}`;
      statement(
        db,
        `INSERT INTO runs (run_id, harness_id, harness_dir, status, started_at, ended_at,
           spec_version, trace_path, thread_id, thread_seq, thread_input, thread_output)
         VALUES (?1, ?2, ?3, 'success', ?4, ?4, 'v', 'elsewhere', ?5,
           (SELECT coalesce(max(thread_seq), 0) + 1 FROM runs WHERE thread_id = ?5), 'q3',
           'from elsewhere')`,
      ).run(runId, h.id, h.dir, at, id);
      const before = await journals(h.dir);
      const trace = await send("q4");
      assert.deepEqual(await firstCall(trace), [
        "user:q1",
        "assistant:answer",
        "user:q2",
        "assistant:answer",
        "user:q3",
        "assistant:from elsewhere",
        "user:q4",
      ]);
      // One journal more, the run's own: none left behind by a start that recorded nothing.
      assert.equal((await journals(h.dir)).length, before.length + 1);
      assert.equal(turnCount(), 4);
    });

    await t.step("another owner's thread is not found, and nothing is recorded", async () => {
      const before = await journals(h.dir);
      await assert.rejects(
        send("q5", "k_bob"),
        (e: unknown) => e instanceof FrameworkError && e.kind === "not_found",
      );
      assert.deepEqual(await journals(h.dir), before);
      assert.equal(turnCount(), 4);
    });

    await t.step("a thread another run holds is refused, and nothing is recorded", async () => {
      const before = await journals(h.dir);
      assert.equal(lockThread(db, id, "run_other"), null);
      await assert.rejects(send("q5"), busy("run_other"));
      assert.deepEqual(await journals(h.dir), before);
      assert.equal(turnCount(), 4);
      unlockThread(db, id, "run_other");
      assert.deepEqual((await firstCall(await send("q5"))).slice(-3), [
        "user:q4",
        "assistant:answer",
        "user:q5",
      ]);
    });

    await t.step("a thread deleted by another process is not found", async () => {
      statement(db, "DELETE FROM threads WHERE thread_id = ?").run(id);
      const before = await journals(h.dir);
      await assert.rejects(
        send("q6"),
        (e: unknown) => e instanceof FrameworkError && e.kind === "not_found",
      );
      assert.deepEqual(await journals(h.dir), before);
    });
    await runs.close();
  });
}
