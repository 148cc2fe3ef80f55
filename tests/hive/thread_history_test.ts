/**
 * The history a thread's run is given, as this process remembers it between turns: the same as the
 * hive's, whatever happened in between — a turn of another process sharing the hive, a turn whose end
 * was never recorded, a start undone, a thread deleted.
 *
 * @module
 */

import assert from "node:assert/strict";
import { openHive } from "../../lib/hive/open.ts";
import {
  forgetThread,
  goingThread,
  knownHistory,
  rememberHistory,
  turnAbandoned,
  turnEnded,
  turnStarted,
} from "../../lib/hive/thread_history.ts";
import {
  createThread,
  deleteThread,
  getThread,
  startThreadTurn,
  threadHistory,
} from "../../lib/hive/threads.ts";
import { newRunId } from "../../lib/ids.ts";
import type { TurnCondition } from "../../lib/hive/runs.ts";
import { statement } from "../../lib/sqlite/statements.ts";
import { storeHome, STORES } from "../helpers/hive_stores.ts";
import { recordTurnEnd, recordTurnStart } from "../helpers/thread_turns.ts";

const H = { id: "talker", dir: "/h/talker" };

const record = (threadId: string, runId: string, input: string, condition?: TurnCondition) =>
  recordTurnStart(H, threadId, runId, input, condition);
const end = (threadId: string, runId: string, output: string) =>
  recordTurnEnd(H, threadId, runId, output);

/** A turn of this process: started through the thread, ended, and told ended. */
function ownTurn(threadId: string, input: string, output: string, limit = 3) {
  const runId = newRunId();
  const history = startThreadTurn(openHive(), {
    harness: H,
    threadId,
    runId,
    viewer: null,
    historyTurns: limit,
  }, (history, condition) => {
    record(threadId, runId, input, condition);
    return history;
  });
  end(threadId, runId, output);
  turnEnded(runId, output);
  return history;
}

/**
 * A turn of another process sharing the hive: its run's row written as that process writes it
 * (numbered after the thread's newest turn), never seen by this process's memory of the thread.
 */
function otherProcessTurn(threadId: string, input: string, output: string): void {
  const at = new Date().toISOString();
  const runId = newRunId();
  statement(
    openHive(),
    `INSERT INTO runs (run_id, harness_id, harness_dir, status, started_at, ended_at, spec_version,
       trace_path, thread_id, thread_seq, thread_input, thread_output)
     VALUES (?1, ?2, ?3, 'success', ?4, ?4, 'v', ?5, ?6,
       (SELECT coalesce(max(thread_seq), 0) + 1 FROM runs WHERE thread_id = ?6), ?7, ?8)`,
  ).run(
    runId,
    H.id,
    H.dir,
    at,
    `${H.dir}/.framework/traces/${runId}.jsonl`,
    threadId,
    input,
    output,
  );
}

for (const store of STORES) {
  Deno.test(`thread history: what this process remembers is what the hive holds [${store}]`, async (t) => {
    await using _home = await storeHome(store);
    const db = openHive();
    const id = createThread(db, H, "cli", {}).thread_id;
    const pairs = (h: { input: string; output: string }[]) =>
      h.map((x) => `${x.input}>${x.output}`);

    await t.step("each turn is given the newest answered turns, as the hive has them", () => {
      assert.deepEqual(ownTurn(id, "q1", "a1"), []);
      assert.deepEqual(pairs(ownTurn(id, "q2", "a2")), ["q1>a1"]);
      assert.deepEqual(pairs(ownTurn(id, "q3", "")), ["q1>a1", "q2>a2"]);
      assert.deepEqual(pairs(ownTurn(id, "q4", "a4")), ["q1>a1", "q2>a2"]);
      assert.deepEqual(pairs(ownTurn(id, "q5", "a5")), ["q1>a1", "q2>a2", "q4>a4"]);
      // Remembered as of the thread's five turns, and equal to the hive's.
      const turns = getThread(db, H, id, null).turns;
      assert.deepEqual(knownHistory(id, turns, 3), threadHistory(db, id, 3));
    });

    await t.step("a turn of another process is read from the hive", () => {
      otherProcessTurn(id, "q6", "a6");
      assert.equal(knownHistory(id, getThread(db, H, id, null).turns, 3), undefined);
      assert.deepEqual(pairs(ownTurn(id, "q7", "a7")), ["q4>a4", "q5>a5", "q6>a6"]);
      assert.deepEqual(pairs(ownTurn(id, "q8", "a8")), ["q5>a5", "q6>a6", "q7>a7"]);
    });

    await t.step("a turn whose end was not recorded is not remembered", () => {
      const runId = newRunId();
      startThreadTurn(
        db,
        { harness: H, threadId: id, runId, viewer: null, historyTurns: 3 },
        (_, condition) => record(id, runId, "q9", condition),
      );
      turnAbandoned(runId); // its end never reached the hive
      end(id, runId, "a9"); // recorded later (the hive came back): read from the hive next
      assert.deepEqual(pairs(ownTurn(id, "q10", "a10")), ["q7>a7", "q8>a8", "q9>a9"]);
    });

    await t.step("a start undone leaves nothing remembered of it", () => {
      const runId = newRunId();
      assert.throws(() =>
        startThreadTurn(
          db,
          { harness: H, threadId: id, runId, viewer: null, historyTurns: 3 },
          (_, condition) => {
            record(id, runId, "q-undone", condition);
            throw new Error("the launch failed");
          },
        ), /the launch failed/);
      turnEnded(runId, "never");
      assert.deepEqual(pairs(ownTurn(id, "q11", "a11")), ["q8>a8", "q9>a9", "q10>a10"]);
    });

    await t.step("a longer history than remembered is read from the hive", () => {
      assert.deepEqual(pairs(ownTurn(id, "q12", "a12", 5)), [
        "q7>a7",
        "q8>a8",
        "q9>a9",
        "q10>a10",
        "q11>a11",
      ]);
    });

    await t.step("a history of none is given none, whatever is remembered", () => {
      assert.deepEqual(ownTurn(id, "q13", "a13", 0), []);
      assert.deepEqual(pairs(ownTurn(id, "q14", "a14")), ["q11>a11", "q12>a12", "q13>a13"]);
    });

    await t.step("a deleted thread is forgotten", () => {
      deleteThread(db, H, id, null);
      assert.equal(knownHistory(id, 12, 3), undefined);
    });
  });
}

Deno.test("thread history: a turn is added only onto what was known just before it began", () => {
  rememberHistory("thr_a", 2, 2, [{ input: "q1", output: "a1" }]);
  turnStarted("run_a3", "thr_a", 3, "q3");
  turnEnded("run_a3", "a3");
  assert.deepEqual(knownHistory("thr_a", 3, 2), [
    { input: "q1", output: "a1" },
    { input: "q3", output: "a3" },
  ]);
  assert.deepEqual(knownHistory("thr_a", 3, 1), [{ input: "q3", output: "a3" }]);
  assert.equal(knownHistory("thr_a", 3, 3), undefined, "more than it was read with");
  assert.deepEqual(knownHistory("thr_a", 3, 0), [], "a history of none is none");
  // Turn 5 ended here while turn 4 (another process's) was never seen: forgotten, not guessed.
  turnStarted("run_a5", "thr_a", 5, "q5");
  turnEnded("run_a5", "a5");
  assert.equal(knownHistory("thr_a", 5, 2), undefined);
  assert.equal(knownHistory("thr_a", 3, 2), undefined);
});

Deno.test("thread history: one-off threads made here never push out the threads that go on", () => {
  const answered = [{ input: "q1", output: "a1" }, { input: "q2", output: "a2" }];
  rememberHistory("thr_goes_on", 2, 3, answered);
  // A thread made here, its first turn taken (as an A2A message without a context does), 300 times:
  // more than the threads remembered.
  const oneOff = (i: number, prefix = "thr_once") => {
    rememberHistory(`${prefix}_${i}`, 0, 3, [], true);
    turnStarted(`run_${prefix}_${i}`, `${prefix}_${i}`, 1, `q${i}`);
    turnEnded(`run_${prefix}_${i}`, `a${i}`);
  };
  for (let i = 0; i < 300; i++) oneOff(i);
  assert.deepEqual(knownHistory("thr_goes_on", 2, 3), answered, "the thread that goes on");
  // The newest one-off threads are remembered for their second turn, the oldest are not.
  assert.deepEqual(knownHistory("thr_once_299", 1, 3), [{ input: "q299", output: "a299" }]);
  assert.equal(knownHistory("thr_once_0", 1, 3), undefined);
  // A second turn makes a thread one that goes on: 300 more one-off threads leave it remembered.
  for (let i = 0; i < 300; i++) oneOff(i, "thr_later");
  assert.deepEqual(knownHistory("thr_once_299", 1, 3), [{ input: "q299", output: "a299" }]);
  assert.deepEqual(knownHistory("thr_goes_on", 2, 3), answered);
  // Forgotten when deleted, wherever it is kept.
  forgetThread("thr_later_299");
  assert.equal(knownHistory("thr_later_299", 1, 3), undefined);
});

Deno.test("thread history: work ahead of a turn sees the threads that go on, and moves none", () => {
  const answered = [{ input: "q1", output: "a1" }, { input: "q2", output: "a2" }];
  rememberHistory("thr_ahead_goes_on", 2, 3, answered);
  rememberHistory("thr_ahead_made", 0, 3, [], true);
  turnStarted("run_ahead_made", "thr_ahead_made", 1, "q");
  turnEnded("run_ahead_made", "a");
  assert.deepEqual(goingThread("thr_ahead_goes_on", 3), { turns: 2, history: answered });
  assert.deepEqual(goingThread("thr_ahead_goes_on", 1), { turns: 2, history: [answered[1]] });
  // More than it was remembered with: read from the hive instead.
  assert.equal(goingThread("thr_ahead_goes_on", 4), undefined);
  // A thread made here that has had one turn stays on probation: nothing is made ahead for it.
  assert.equal(goingThread("thr_ahead_made", 3), undefined);
  // Still on probation after it (not made one that goes on): 300 newer one-off threads push it out,
  // and the thread that goes on stays.
  for (let i = 0; i < 300; i++) rememberHistory(`thr_ahead_once_${i}`, 0, 3, [], true);
  assert.equal(knownHistory("thr_ahead_made", 1, 3), undefined);
  assert.deepEqual(knownHistory("thr_ahead_goes_on", 2, 3), answered);
  assert.equal(goingThread("thr_unknown", 3), undefined);
});
