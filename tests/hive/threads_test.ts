/**
 * Threads in the hive: owners, pages, the history a turn is given (newest turns with an answer,
 * whatever the thread's length), and the busy lock (held by a run and its process, free again once
 * that process has gone or the run has ended, let go only by the run holding it).
 *
 * @module
 */

import assert from "node:assert/strict";
import { FrameworkError } from "../../lib/errors.ts";
import { openHive } from "../../lib/hive/open.ts";
import { insertRun, isThreadMoved } from "../../lib/hive/runs.ts";
import {
  claimThread,
  createThread,
  deleteThread,
  getThread,
  isUnknownThread,
  listThreads,
  lockThread,
  type NewThread,
  newThread,
  startThreadTurn,
  storeThread,
  threadHistory,
  threadTurns,
  unlockThread,
} from "../../lib/hive/threads.ts";
import { newRunId } from "../../lib/ids.ts";
import { statement } from "../../lib/sqlite/statements.ts";
import { storeHome, STORES } from "../helpers/hive_stores.ts";
import { recordTurnEnd, recordTurnStart } from "../helpers/thread_turns.ts";

const H = { id: "talker", dir: "/h/talker" };

/** Records a thread turn's run as ended with `output` (an empty output is an error). */
const endTurn = (runId: string, threadId: string, output: string, cost: number) =>
  recordTurnEnd(H, threadId, runId, output, cost);

/** A turn of a thread: the run recorded as it starts and, unless `open`, as it ends. */
function turn(threadId: string, input: string, output: string | null): string {
  const run_id = newRunId();
  assert.equal(lockThread(openHive(), threadId, run_id), null);
  recordTurnStart(H, threadId, run_id, input);
  if (output !== null) endTurn(run_id, threadId, output, 0.001);
  return run_id;
}

for (const store of STORES) {
  Deno.test(`threads: owners see their own, a page goes on from its cursor [${store}]`, async () => {
    await using _home = await storeHome(store);
    const db = openHive();
    const mine = [1, 2, 3].map(() => createThread(db, H, "k_alice", {}).thread_id);
    const theirs = createThread(db, H, "k_bob", { n: 1 }).thread_id;
    assert.throws(
      () => getThread(db, H, theirs, "k_alice"),
      (e) => e instanceof FrameworkError && e.kind === "not_found",
    );
    assert.equal(getThread(db, H, theirs, null).owner, "k_bob");
    assert.throws(() => getThread(db, { ...H, dir: "/elsewhere" }, mine[0]!, null));
    const first = listThreads(db, H, "k_alice", { limit: 2 });
    assert.deepEqual(first.threads.map((t) => t.thread_id), [mine[2], mine[1]]);
    const second = listThreads(db, H, "k_alice", { limit: 2, cursor: first.next_cursor! });
    assert.deepEqual(second.threads.map((t) => t.thread_id), [mine[0]]);
    assert.equal(second.next_cursor, null);
    assert.equal(listThreads(db, H, null, { limit: 10 }).threads.length, 4);
  });
}

for (const store of STORES) {
  Deno.test(`threads: the history is the newest answered turns, oldest first, however long [${store}]`, async () => {
    await using _home = await storeHome(store);
    const db = openHive();
    const id = createThread(db, H, "cli", {}).thread_id;
    for (let i = 1; i <= 30; i++) turn(id, `q${i}`, i === 29 ? "" : `a${i}`);
    const history = threadHistory(db, id, 3);
    // Turn 29 ended without an answer: it is left out.
    assert.deepEqual(history, [
      { input: "q27", output: "a27" },
      { input: "q28", output: "a28" },
      { input: "q30", output: "a30" },
    ]);
    assert.deepEqual(threadHistory(db, id, 0), []);
    assert.equal(getThread(db, H, id, null).turns, 30);
    const turns = threadTurns(db, id);
    assert.equal(turns.length, 30);
    assert.deepEqual([turns[0]!.input, turns[0]!.output, turns[0]!.status], [
      "q1",
      "a1",
      "success",
    ]);
    // The history's query reads the thread's rows by key, not the whole table (SQLite's plan).
    if (store !== "sqlite") return;
    const plan = statement(
      db,
      `EXPLAIN QUERY PLAN SELECT thread_input, thread_output FROM runs
       WHERE thread_id = ? AND thread_output IS NOT NULL AND thread_output != ''
       ORDER BY thread_seq DESC LIMIT ?`,
    ).all(id, 3) as { detail: string }[];
    assert.match(plan.map((p) => p.detail).join("\n"), /SEARCH runs USING INDEX runs_thread_turns/);
  });
}

for (const store of STORES) {
  Deno.test(`threads: the busy lock [${store}]`, async (t) => {
    await using _home = await storeHome(store);
    const db = openHive();
    const id = createThread(db, H, "cli", {}).thread_id;

    await t.step("a run holds it until it ends; another run is told which", () => {
      const live = turn(id, "q1", null);
      assert.equal(getThread(db, H, id, null).live_run_id, live);
      assert.equal(lockThread(db, id, newRunId()), live);
      // Only the holder lets it go.
      unlockThread(db, id, newRunId());
      assert.equal(getThread(db, H, id, null).live_run_id, live);
      assert.throws(
        () => deleteThread(db, H, id, null),
        (e) => e instanceof FrameworkError && e.kind === "conflict" && e.details.run_id === live,
      );
      statement(db, "UPDATE runs SET status = 'error' WHERE run_id = ?").run(live);
      // Its run has ended (a crash between the run's end and the lock's): free again.
      assert.equal(getThread(db, H, id, null).live_run_id, null);
      assert.equal(lockThread(db, id, newRunId()), null);
    });

    await t.step(
      "a run's end leaves the thread's row naming it: free, changed when it ended",
      async () => {
        // Let go of the lock the step before took for a run that never started.
        statement(db, "UPDATE threads SET live_run_id = NULL WHERE thread_id = ?").run(id);
        await new Promise((r) => setTimeout(r, 5)); // its end after the thread's last write
        const ended = turn(id, "q2", "a2");
        const named = statement(db, "SELECT live_run_id FROM threads WHERE thread_id = ?").get(id);
        assert.equal((named as { live_run_id: string }).live_run_id, ended);
        const endedAt = (statement(db, "SELECT ended_at FROM runs WHERE run_id = ?").get(ended) as {
          ended_at: string;
        }).ended_at;
        const thread = getThread(db, H, id, null);
        assert.equal(thread.live_run_id, null);
        assert.equal(thread.updated_at, endedAt);
        const listed = listThreads(db, H, null, { limit: 10 }).threads.find((x) =>
          x.thread_id === id
        );
        assert.equal(listed?.updated_at, endedAt);
        assert.equal(listed?.live_run_id, null);
        // The next run takes it at once; then only that run lets it go.
        const next = newRunId();
        assert.equal(lockThread(db, id, next), null);
        assert.equal(getThread(db, H, id, null).live_run_id, next);
        assert.equal(claimThread(db, H, id, null, newRunId()), next);
        // The thread's last change is still the ended run's end, while the lock waits and after.
        assert.equal(getThread(db, H, id, null).updated_at, endedAt);
        unlockThread(db, id, next);
        assert.equal(getThread(db, H, id, null).live_run_id, null);
        assert.equal(getThread(db, H, id, null).updated_at, endedAt);
        // So too through a claim (the thread read and locked in one transaction).
        const again = turn(id, "q3", "a3");
        const againEnd =
          (statement(db, "SELECT ended_at FROM runs WHERE run_id = ?").get(again) as {
            ended_at: string;
          }).ended_at;
        const waiting = newRunId();
        assert.equal(claimThread(db, H, id, null, waiting), null);
        assert.equal(getThread(db, H, id, null).updated_at, againEnd);
        unlockThread(db, id, waiting);
        assert.equal(getThread(db, H, id, null).updated_at, againEnd);
      },
    );

    await t.step("a lock whose process has gone is free again", () => {
      const holder = newRunId();
      statement(
        db,
        "UPDATE threads SET live_run_id = ?, live_pid = 999999999, live_start = 'x' WHERE thread_id = ?",
      ).run(holder, id);
      assert.equal(getThread(db, H, id, null).live_run_id, null);
      assert.equal(lockThread(db, id, newRunId()), null);
    });

    await t.step("a run waiting for its slot (not recorded yet) holds it", () => {
      const waiting = newRunId();
      statement(db, "UPDATE threads SET live_run_id = NULL WHERE thread_id = ?").run(id);
      assert.equal(lockThread(db, id, waiting), null);
      assert.equal(lockThread(db, id, newRunId()), waiting);
      assert.equal(lockThread(db, id, waiting), null, "taking it again is fine");
      unlockThread(db, id, waiting);
      deleteThread(db, H, id, null);
      assert.throws(() => getThread(db, H, id, null));
    });
  });
}

for (const store of STORES) {
  Deno.test(`threads: a run's output goes to its own turn, found by the thread's key [${store}]`, async () => {
    await using _home = await storeHome(store);
    const db = openHive();
    const id = createThread(db, H, "cli", {}).thread_id;
    turn(id, "q1", "a1");
    // A run whose process died mid-turn: the next turn takes the thread and goes on.
    const orphan = turn(id, "q2", null);
    statement(db, "UPDATE threads SET live_pid = 999999999 WHERE thread_id = ?").run(id);
    statement(db, "UPDATE runs SET owner_pid = 999999999 WHERE run_id = ?").run(orphan);
    const next = turn(id, "q3", null);
    // The orphan's end is recorded after all (its process was only slow): on its own turn.
    endTurn(orphan, id, "a2", 0);
    assert.deepEqual(
      threadTurns(db, id).map((t) => [t.input, t.output]),
      [["q1", "a1"], ["q2", "a2"], ["q3", null]],
    );
    assert.equal(getThread(db, H, id, null).live_run_id, next, "the lock stays the next turn's");
  });
}

for (const store of STORES) {
  Deno.test(`threads: made held by its first run, and claimed as its viewer may see it [${store}]`, async (t) => {
    await using _home = await storeHome(store);
    const db = openHive();

    await t.step("a thread made for a run is busy at once, and free once that run ends", () => {
      const first = newRunId();
      const made = createThread(db, H, "k_alice", {}, first);
      assert.equal(made.live_run_id, first);
      assert.equal(getThread(db, H, made.thread_id, null).live_run_id, first);
      assert.equal(lockThread(db, made.thread_id, newRunId()), first);
      // Its run records its turn and ends: the lock goes with the run's finishing write.
      const at = new Date().toISOString();
      insertRun(db, {
        run_id: first,
        harness_id: H.id,
        harness_dir: H.dir,
        input: "q1",
        started_at: at,
        spec_version: "v",
        trace_path: `${H.dir}/.framework/traces/${first}.jsonl`,
        thread_id: made.thread_id,
      });
      endTurn(first, made.thread_id, "a1", 0);
      const after = getThread(db, H, made.thread_id, null);
      assert.deepEqual([after.live_run_id, after.turns], [null, 1]);
      assert.deepEqual(threadHistory(db, made.thread_id, 20), [{ input: "q1", output: "a1" }]);
    });

    await t.step("a thread made for a run of a process that has gone is free", () => {
      const made = createThread(db, H, "k_alice", {}, newRunId());
      statement(db, "UPDATE threads SET live_pid = 999999999 WHERE thread_id = ?").run(
        made.thread_id,
      );
      assert.equal(claimThread(db, H, made.thread_id, null, newRunId()), null);
    });

    await t.step("claiming finds the thread as getThread does, and takes it unless held", () => {
      const id = createThread(db, H, "k_alice", {}).thread_id;
      const unknown = (e: unknown) => e instanceof FrameworkError && e.kind === "not_found";
      assert.throws(() => claimThread(db, H, id, "k_bob", newRunId()), unknown);
      assert.throws(
        () => claimThread(db, { ...H, dir: "/elsewhere" }, id, null, newRunId()),
        unknown,
      );
      assert.throws(() => claimThread(db, H, "thr_nope", null, newRunId()), unknown);
      assert.ok(
        isUnknownThread(
          (() => {
            try {
              claimThread(db, H, id, "k_bob", newRunId());
            } catch (e) {
              return e;
            }
          })(),
          id,
        ),
      );
      assert.equal(getThread(db, H, id, null).live_run_id, null, "a refused claim takes nothing");
      const holder = newRunId();
      assert.equal(claimThread(db, H, id, "k_alice", holder), null);
      assert.equal(claimThread(db, H, id, null, newRunId()), holder);
      assert.equal(claimThread(db, H, id, "k_alice", holder), null, "taking it again is fine");
      unlockThread(db, id, holder);
      assert.equal(getThread(db, H, id, null).live_run_id, null);
    });
  });
}

Deno.test("threads: a thread's run without a turn number is refused and nothing is recorded (SQLite's guard of a turn started without reading its thread)", async () => {
  await using _home = await storeHome("sqlite");
  const db = openHive();
  const id = createThread(db, H, "k_alice", {}).thread_id;
  const runId = newRunId();
  assert.throws(
    () =>
      statement(
        db,
        `INSERT INTO runs (run_id, harness_id, harness_dir, status, started_at, spec_version,
           trace_path, thread_id, thread_seq) VALUES (?, ?, ?, 'running', ?, 'v', 't', ?, NULL)`,
      ).run(runId, H.id, H.dir, new Date().toISOString(), id),
    /thread_moved/,
  );
  const count = statement(db, "SELECT count(*) AS n FROM runs WHERE run_id = ?").get(runId);
  assert.equal((count as { n: number }).n, 0, "no row");
  const thread = getThread(db, H, id, null);
  assert.equal(thread.turns, 0, "the thread counts no turn");
  assert.equal(thread.live_run_id, null, "nor is it held");
  // A turn whose number is given goes in.
  insertRun(db, {
    run_id: newRunId(),
    harness_id: H.id,
    harness_dir: H.dir,
    input: "hi",
    started_at: new Date().toISOString(),
    spec_version: "v",
    trace_path: "t",
    thread_id: id,
  });
  assert.equal(getThread(db, H, id, null).turns, 1);
});

for (const store of STORES) {
  Deno.test(`threads: a new thread's first turn is recorded as made, and refused once it is not [${store}]`, async (t) => {
    await using _home = await storeHome(store);
    const db = openHive();
    // The launch records the run, then fails when asked to (after its record).
    const start = (made: NewThread, runId: string, stored = false, launchFails = false) =>
      startThreadTurn(
        db,
        {
          harness: H,
          threadId: made.thread_id,
          runId,
          viewer: null,
          historyTurns: 20,
          made,
          stored,
        },
        (_history, condition) => {
          insertRun(db, {
            run_id: runId,
            harness_id: H.id,
            harness_dir: H.dir,
            input: "q1",
            started_at: new Date().toISOString(),
            spec_version: "v",
            trace_path: `${H.dir}/.framework/traces/${runId}.jsonl`,
            thread_id: made.thread_id,
            ...(condition ? { thread_if: condition } : {}),
          });
          if (launchFails) throw new Error("the launch failed");
        },
      );

    await t.step("stored with its first turn (number 1), held by its run", () => {
      const runId = newRunId();
      const made = newThread(H, "k_alice", {}, runId);
      start(made, runId);
      const thread = getThread(db, H, made.thread_id, null);
      assert.deepEqual([thread.turns, thread.live_run_id], [1, runId]);
      assert.deepEqual(threadTurns(db, made.thread_id).map((r) => r.run_id), [runId]);
      assert.deepEqual([thread.created_at, thread.metadata], [made.created_at, {}]);
    });

    await t.step("stored while its run waited, as made: its first turn counted once", () => {
      const runId = newRunId();
      const made = newThread(H, "k_alice", {}, runId);
      storeThread(db, made);
      start(made, runId, true);
      const thread = getThread(db, H, made.thread_id, null);
      assert.deepEqual([thread.turns, thread.live_run_id], [1, runId]);
      assert.deepEqual(threadTurns(db, made.thread_id).map((r) => r.run_id), [runId]);
    });

    await t.step(
      "a start that fails after its record leaves neither the run nor the thread",
      () => {
        const runId = newRunId();
        const made = newThread(H, "k_alice", {}, runId);
        assert.throws(() => start(made, runId, false, true), /the launch failed/);
        assert.throws(() => getThread(db, H, made.thread_id, null), /Unknown thread/);
        assert.deepEqual(threadTurns(db, made.thread_id), []);
      },
    );

    await t.step("stored while its run waited, then changed: a conflict, nothing recorded", () => {
      const runId = newRunId();
      const made = newThread(H, "k_alice", {}, runId);
      storeThread(db, made);
      // A first turn this process did not make (the number its own first turn would take).
      const other = newRunId();
      statement(
        db,
        `INSERT INTO runs (run_id, harness_id, harness_dir, status, started_at, spec_version,
           trace_path, thread_id, thread_seq, thread_input)
         VALUES (?1, ?2, ?3, 'success', 't', 'v', ?4, ?5, 1, 'q')`,
      ).run(other, H.id, H.dir, `${H.dir}/x.jsonl`, made.thread_id);
      assert.throws(
        () => start(made, runId, true),
        (e) => e instanceof FrameworkError && e.kind === "conflict" && /changed/.test(e.message),
      );
      assert.deepEqual(threadTurns(db, made.thread_id).map((r) => r.run_id), [other]);
    });
  });
}

for (const store of STORES) {
  Deno.test(`threads: a thread is read from its newest turn, and one run has each number [${store}]`, async (t) => {
    await using _home = await storeHome(store);
    const db = openHive();
    const id = createThread(db, H, "k_alice", {}).thread_id;
    turn(id, "q1", "a1");

    await t.step("busy while its newest turn runs, whoever started it, with no claim", () => {
      const running = newRunId();
      // Recorded with no claim taken first (a start that did not read the thread).
      recordTurnStart(H, id, running, "q2", { harness: H, turns: 1, viewer: null });
      const thread = getThread(db, H, id, null);
      assert.deepEqual([thread.turns, thread.live_run_id], [2, running]);
      assert.equal(lockThread(db, id, newRunId()), running);
      assert.equal(claimThread(db, H, id, null, newRunId()), running);
      assert.throws(
        () => deleteThread(db, H, id, null),
        (e) => e instanceof FrameworkError && e.kind === "conflict",
      );
      // Its process gone: free, and taken by the next.
      statement(db, "UPDATE runs SET owner_pid = 999999999 WHERE run_id = ?").run(running);
      assert.equal(getThread(db, H, id, null).live_run_id, null);
      statement(db, "UPDATE runs SET owner_pid = ? WHERE run_id = ?").run(Deno.pid, running);
      endTurn(running, id, "a2", 0);
      const ended = getThread(db, H, id, null);
      assert.deepEqual([ended.turns, ended.live_run_id], [2, null]);
    });

    await t.step(
      "a start that does not read the thread records nothing when its number is taken",
      () => {
        // Two starts that each know the thread at two turns: the second finds the number taken.
        const first = newRunId();
        recordTurnStart(H, id, first, "q3", { harness: H, turns: 2, viewer: null });
        endTurn(first, id, "a3", 0);
        const second = newRunId();
        assert.throws(
          () => recordTurnStart(H, id, second, "q3 again", { harness: H, turns: 2, viewer: null }),
          (e) => isThreadMoved(e),
        );
        assert.deepEqual(threadTurns(db, id).map((r) => r.run_id).slice(-1), [first]);
        assert.equal(getThread(db, H, id, null).turns, 3);
        // Another viewer's, or another harness's: nothing recorded either.
        assert.throws(
          () => recordTurnStart(H, id, newRunId(), "q", { harness: H, turns: 3, viewer: "k_bob" }),
          (e) => isThreadMoved(e),
        );
        assert.throws(
          () =>
            recordTurnStart(H, id, newRunId(), "q", {
              harness: { ...H, dir: "/elsewhere" },
              turns: 3,
              viewer: null,
            }),
          (e) => isThreadMoved(e),
        );
        assert.equal(getThread(db, H, id, null).turns, 3);
      },
    );

    await t.step(
      "a claim of a run waiting for a slot holds it against a start that does not read it",
      () => {
        const waiting = newRunId();
        assert.equal(claimThread(db, H, id, "k_alice", waiting), null);
        assert.throws(
          () => recordTurnStart(H, id, newRunId(), "q4", { harness: H, turns: 3, viewer: null }),
          (e) => isThreadMoved(e),
        );
        // The claiming run itself starts.
        recordTurnStart(H, id, waiting, "q4", { harness: H, turns: 3, viewer: "k_alice" });
        assert.equal(getThread(db, H, id, null).live_run_id, waiting);
        endTurn(waiting, id, "a4", 0);
        const thread = getThread(db, H, id, null);
        assert.deepEqual([thread.turns, thread.live_run_id], [4, null]);
        assert.deepEqual(threadHistory(db, id, 2).map((x) => x.output), ["a3", "a4"]);
      },
    );
  });
}
