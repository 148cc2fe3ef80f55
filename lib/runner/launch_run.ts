/**
 * Launching a prepared run: it is recorded in the hive, its journal is created (hash-chained, the
 * `logging.redact` rules applied before a line is written), and the loop runs in the background. The
 * run is reported finished only once its journal and its hive row are durable. The run
 * service (`lib/runs/service.ts`) launches runs when a slot is free; shells never call this.
 *
 * @module
 */

import { type Hive, isPgHive, openHive } from "../hive/open.ts";
import { commitGrouped } from "../hive/group_commit.ts";
import { finishRun, insertRun } from "../hive/runs.ts";
import type { JournalEvent } from "../journal/event.ts";
import { journalCreateError } from "../journal/trace_dir.ts";
import { createJournal, type JournalWriter } from "../journal/writer.ts";
import { copyJournalFile } from "../journal/hive_copy.ts";
import { journalCopyFailure, journalLineSender } from "../hive/journal_lines.ts";
import { isHiveUnavailable } from "../errors.ts";
import { retryWhenHiveBack } from "../hive/retry.ts";
import { turnAbandoned, turnEnded } from "../hive/thread_history.ts";
import { failureSignature } from "../failure_signature.ts";
import type { RunResult } from "../run_types.ts";
import { HIVE_UNAVAILABLE } from "./end_run.ts";
import { linkSignals } from "../linked_signal.ts";
import { claimHarness } from "../harness_spec/claim.ts";
import { registerActiveRun } from "./active_runs.ts";
import { createRunControls } from "./control_queue.ts";
import { createEventStream } from "./event_stream.ts";
import type { PreparedRun } from "./prepare_run.ts";
import type { RunHandle } from "./run_handle.ts";
import { runLoop } from "./run_loop.ts";

/**
 * Starts a prepared run: records it in the hive, creates its journal and runs the loop in the
 * background. The handle is registered as active until the run ends.
 *
 * @example
 * ```ts
 * import { newRunId } from "../ids.ts";
 * import { prepareRun } from "./prepare_run.ts";
 *
 * const run = launchRun(await prepareRun("./harnesses/hello", { input: "Hi" }), newRunId());
 * (await run.result).status; // "success"
 * ```
 * @param prepared The prepared run.
 * @param run_id Its id, allocated by the run service.
 * @returns The run handle.
 * @throws `bad_input` on `logging.trace_dir` when the journal cannot be created there.
 */
export function launchRun(prepared: PreparedRun, run_id: string): RunHandle {
  const { loaded, traceDir, options } = prepared;
  const spec = loaded.spec;
  const trace_path = `${traceDir}/${run_id}.jsonl`;
  const started = new Date();
  const db = openHive();
  const journal = recordStart(db, prepared, run_id, trace_path, started);
  const events = createEventStream<JournalEvent>();
  const stopper = new AbortController();
  const runSignal = linkSignals(options.signal, stopper.signal);
  const controls = createRunControls({ run_id, spec, abort: (reason) => stopper.abort(reason) });
  const result = runLoop({
    prepared,
    run_id,
    journal,
    events,
    controls,
    started,
    signal: runSignal.signal,
  }).then(async (r) => {
    runSignal.dispose();
    // The journal's flush and the hive's finishing write go side by side, then the hive's log is
    // flushed past that write; the run is reported finished once the journal and its row are both
    // durable.
    const durable = journal.close();
    durable.catch(() => {}); // awaited below, after the hive's write (which may wait for a flush)
    const head = { head_hash: journal.head(), events: journal.count() };
    // A run whose journal could not be copied to the hive is reported as one that lost it. The
    // copy's last lines travel with the end's update, which is recorded only over a whole copy.
    let copyLost = journal.copyFailed();
    let reported = copyLost ? lostHive(r, COPY_LOST) : r;
    // The finishing write is committed with the other runs ending meanwhile, in one transaction,
    // and made durable by their shared flush of the log (lib/hive/group_commit.ts).
    const end = commitGrouped((hive) => {
      if (finishRun(hive, reported, head, { whole: !copyLost })) return;
      copyLost = true;
      reported = lostHive(r, COPY_LOST);
      finishRun(hive, reported, head);
    });
    try {
      await end.written;
      // A thread's turn is known to this process once its end is recorded (its next turn's history).
      turnEnded(run_id, reported.output);
      runAfterEnd(run_id, prepared.options.afterEnd);
      if (isPgHive(db) && journalCopyFailure(db, run_id)) copyLost = true;
    } catch (err) {
      turnAbandoned(run_id);
      if (isPgHive(db) && journalCopyFailure(db, run_id)) copyLost = true;
      if (!isHiveUnavailable(err)) {
        console.error(
          `warning: could not record the end of ${run_id} in the hive: ${(err as Error).message}`,
        );
      } else {
        // Never report an end the hive does not hold: the run is told as lost, and recorded so
        // once the database is back.
        reported = lostHive(reported, (err as Error).message);
        const lost = reported;
        retryWhenHiveBack(`the end of ${run_id}`, () => void finishRun(openHive(), lost, head));
      }
    }
    try {
      await Promise.all([durable, end.durable]);
    } finally {
      events.close();
    }
    if (copyLost) {
      retryWhenHiveBack(
        `the journal of ${run_id}`,
        async () => void await copyJournalFile(openHive(), run_id, trace_path),
      );
    }
    return reported;
  });
  // A run whose loop failed never records a thread turn's end.
  result.catch(() => turnAbandoned(run_id));
  const handle: RunHandle = {
    run_id,
    harness_id: spec.id,
    spec_version: loaded.version,
    spec,
    trace_path,
    events,
    result,
    stop: () => stopper.abort(new Error("The run was stopped")),
    controls,
  };
  registerActiveRun(handle);
  return handle;
}

/** Runs a run's `afterEnd` (lib/runner/prepare_run.ts): what it throws is logged, and the run goes on. */
function runAfterEnd(run_id: string, afterEnd: (() => void) | undefined): void {
  try {
    afterEnd?.();
  } catch (err) {
    console.error(`warning: after the end of ${run_id}: ${(err as Error).message}`);
  }
}

/**
 * Creates a run's journal and records its start in the hive (its harness in the catalog, its row);
 * a start not recorded leaves no journal behind (lib/hive/threads.ts launches such a run again).
 */
function recordStart(
  db: Hive,
  prepared: PreparedRun,
  run_id: string,
  trace_path: string,
  started: Date,
): JournalWriter {
  const { loaded, options } = prepared;
  const spec = loaded.spec;
  let journal: JournalWriter;
  try {
    // On PostgreSQL the hive keeps a copy of the lines, sent without waiting (the end waits).
    journal = createJournal(
      trace_path,
      spec.logging?.redact,
      isPgHive(db) ? journalLineSender(db, run_id) : undefined,
    );
  } catch (err) {
    throw journalCreateError(err, spec.logging?.trace_dir);
  }
  try {
    if (!options.uncatalogued) {
      claimHarness(db, { id: spec.id, root_path: loaded.dir, name: spec.name ?? spec.id });
    }
    insertRun(db, {
      run_id,
      harness_id: spec.id,
      harness_dir: loaded.dir,
      input: prepared.inputText,
      started_at: started.toISOString(),
      spec_version: loaded.version,
      trace_path,
      parent_run_id: options.parentRunId ?? null,
      reentry_seq: options.replay?.at ?? null,
      eval_id: options.evaluation?.eval_id ?? null,
      live: options.evaluation ? options.evaluation.live : true,
      thread_id: options.threadId ?? null,
      ...(options.threadIf ? { thread_if: options.threadIf } : {}),
    });
  } catch (err) {
    // Not recorded: no journal is left behind (nor its file open), and the run may be launched again.
    journal.discard();
    throw err;
  }
  return journal;
}

/**
 * A run's result as reported when its end could not be recorded: `error`, reason `hive_unavailable`.
 *
 * @param r The result the loop made.
 * @param message The database's error.
 * @returns The result to report (and record once the database is back).
 */
/** Why a run whose journal's copy in the hive is not whole is reported as one that lost the hive. */
const COPY_LOST = "the hive's database was lost while the run wrote its journal";

function lostHive(r: RunResult, message: string): RunResult {
  return {
    ...r,
    status: "error",
    error: { reason: HIVE_UNAVAILABLE, message },
    failure_signature: failureSignature("error", [HIVE_UNAVAILABLE]),
  };
}
