/**
 * Preparing and launching a run: the run id is allocated first, the spec snapshot is loaded once, and
 * the run is journalled (hash-chained) and indexed in the hive. One turn is one model call plus the
 * tool calls it asked for. Every run ends with exactly one of the five statuses. Shells start runs
 * through the run service (`lib/runs/service.ts`), never from here.
 *
 * @module
 */

import { claimHarness } from "../spec/claim.ts";
import { linkSignals } from "../linked_signal.ts";
import { badInput } from "../errors.ts";
import { readCheckedStart, resolveSafePath } from "../fs/safe_path.ts";
import { openHive } from "../hive/open.ts";
import { finishRun, insertRun } from "../hive/runs.ts";
import { newRunId } from "../ids.ts";
import type { JournalEvent } from "../journal/event.ts";
import { checkTraceDir, journalCreateError, protectedTraceDirs } from "../journal/trace_dir.ts";
import { createJournal, type JournalWriter } from "../journal/writer.ts";
import { createProvider, type ProviderContext } from "../models/registry.ts";
import type { Message, ModelProvider } from "../models/types.ts";
import type { Tool } from "../tools/tool.ts";
import { codeToRun } from "../spec/code_refs.ts";
import { type LoadedSpec, loadSpec } from "../spec/load.ts";
import type { HarnessSpec, ModelSpec } from "../spec/schema.ts";
import { requireTrustFor, type TrustedFolder } from "../trust/gate.ts";
import { createEventStream, type EventStream } from "./event_stream.ts";
import { registerActiveRun } from "./active_runs.ts";
import { createRunControls, type RunControls } from "./controls.ts";
import type { Replay } from "./replay.ts";
import type { DelegationContext, Delegator } from "./delegation.ts";
import { runLoop } from "./run_loop.ts";
import type { RunResult, TextDelta } from "../run_types.ts";

/** What a run is asked: literal `input`, a file (`input_file`), or both. */
export interface RunInput {
  input?: string;
  input_file?: string;
}

/** Options of {@link startRun}. */
export interface RunOptions {
  /** A pre-allocated run id. */
  runId?: string;
  /** The run this one was delegated or forked from. */
  parentRunId?: string;
  /** Aborting it stops the run (status `error`, reason `stopped`). */
  signal?: AbortSignal;
  /** An already-loaded spec snapshot (otherwise it is loaded now). */
  spec?: LoadedSpec;
  /** Replaces provider creation (tests, embedders). */
  createProvider?: (model: ModelSpec, ctx: ProviderContext) => ModelProvider;
  /**
   * The trust gate's proof for this folder (the control plane passes the gate once, before it binds).
   * Without it, a harness with code runs only when the trust store trusts its folder.
   */
  trusted?: TrustedFolder;
  /** Earlier messages of a conversation, sent before the input (the workbench copilot). */
  history?: Message[];
  /**
   * Context for the model after the input, kept apart from it (the workbench's selection line):
   * journalled as `input_note`, and not part of the input a scripted scenario is matched against.
   */
  inputNote?: string;
  /** Tools added to the spec's (the workbench copilot's native tools). */
  extraTools?: Tool[];
  /** Sees each model reply's text as it is generated (not journalled: `model_response` holds it). */
  onText?: (delta: TextDelta) => void;
  /** A fork's resume: the parent's checked prefix, replayed before the run goes on live. */
  replay?: Replay;
  /** A case of an evaluation: tagged with it, and counted in live-run fitness only when `live`. */
  evaluation?: { eval_id: string; live: boolean };
  /** A temporary copy of a harness (an evaluation of another version): not put in the catalog. */
  uncatalogued?: boolean;
  /** Where the run stands in a chain of hand-offs (default: a root run). */
  delegation?: DelegationContext;
  /** Hands a task to a peer (the run service gives it to runs of harnesses with peers). */
  delegator?: Delegator;
  /** A delegated run's cost cap. */
  costCapUsd?: number;
}

/** A started run. */
export interface RunHandle {
  run_id: string;
  harness_id: string;
  spec_version: string;
  /** The spec snapshot it runs. */
  spec: HarnessSpec;
  /** The journal file. */
  trace_path: string;
  /** Every journal event as it is written, replayable from the first. */
  events: EventStream<JournalEvent>;
  /** The result; never rejects. */
  result: Promise<RunResult>;
  /** Stops the run now (status `error`, reason `stopped`); a no-op once it has ended. */
  stop(): void;
  /** Its live controls: steering messages, model and mode changes, stop at a turn boundary. */
  controls: RunControls;
}

const MAX_INPUT_FILE_BYTES = 1024 * 1024;

/**
 * Builds the run's input text. `input` is always literal; `input_file` goes through the sensitive-path
 * check (every protected trace folder included), is read through the file that was checked, and its
 * content becomes (part of) the input.
 */
async function resolveInput(
  loaded: LoadedSpec,
  input: RunInput,
  traceDirs: readonly string[],
): Promise<{ text: string; input_file?: string }> {
  const hasInput = input.input !== undefined && input.input !== null;
  const hasFile = input.input_file !== undefined && input.input_file !== null;
  if (!hasInput && !hasFile) {
    throw badInput("Missing input: give `input` (text) or `input_file` (a path)");
  }
  if (hasInput && typeof input.input !== "string") throw badInput("`input` must be a string");
  if (hasFile && typeof input.input_file !== "string") {
    throw badInput("`input_file` must be a string");
  }
  if (!hasFile) return { text: input.input as string };
  const safe = await resolveSafePath(loaded.dir, input.input_file!, { traceDirs });
  const tooLarge = (size: number) =>
    badInput(`input_file ${JSON.stringify(input.input_file)} is ${size} bytes; the limit is 1 MiB`);
  let bytes: Uint8Array;
  try {
    const info = await Deno.stat(safe.absolute);
    if (!info.isFile) {
      throw badInput(`input_file ${JSON.stringify(input.input_file)} is not a file`);
    }
    if (info.size > MAX_INPUT_FILE_BYTES) throw tooLarge(info.size);
    // The file read is the file checked (a name swapped for a link meanwhile is refused), and at
    // most the limit is read: the size that counts is the opened file's.
    const read = await readCheckedStart(safe.absolute, input.input_file!, MAX_INPUT_FILE_BYTES);
    if (read.size > MAX_INPUT_FILE_BYTES) throw tooLarge(read.size);
    bytes = read.bytes;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) {
      throw badInput(`input_file ${JSON.stringify(input.input_file)} does not exist`);
    }
    throw err;
  }
  const content = new TextDecoder().decode(bytes);
  const text = hasInput ? `${input.input}\n\n[file: ${safe.relative}]\n${content}` : content;
  return { text, input_file: safe.relative };
}

/** A run that passed every check and is ready to start; nothing is recorded yet. */
export interface PreparedRun {
  run_id: string;
  loaded: LoadedSpec;
  /** The trace folder the journal is written in (today's `logging.trace_dir`). */
  traceDir: string;
  /**
   * The protected trace folders: `traceDir` and every former one the hive knows inside the harness,
   * refused to `input_file`, file tools and code alike. Taken once here, for the whole run.
   */
  traceDirs: readonly string[];
  inputText: string;
  input_file: string | undefined;
  options: RunOptions;
  /** Whether the folder is trusted. */
  trusted: boolean;
}

/**
 * Checks a run before it starts: loads the spec snapshot, resolves the input (`input_file` through the
 * sensitive-path check) and, for a harness with code, checks the folder is trusted. Bad input throws
 * here, before anything is recorded; nothing is written.
 *
 * @param harnessDir The harness folder.
 * @param input `input` and/or `input_file`.
 * @param options Pre-allocated id, parent, abort signal, spec snapshot.
 * @returns The prepared run (its id is allocated).
 */
export async function prepareRun(
  harnessDir: string,
  input: RunInput,
  options: RunOptions = {},
): Promise<PreparedRun> {
  const run_id = options.runId ?? newRunId();
  const loaded = options.spec ?? await loadSpec(harnessDir);
  const spec = loaded.spec;
  const traceDir = await checkTraceDir(loaded.dir, spec.logging?.trace_dir);
  const traceDirs = protectedTraceDirs(loaded.dir, spec.logging?.trace_dir);
  const { text, input_file } = await resolveInput(loaded, input, traceDirs);
  const trusted = await requireTrustFor(
    loaded.dir,
    codeToRun(spec),
    `The harness ${JSON.stringify(spec.id)}`,
    options.trusted,
  );
  return { run_id, loaded, traceDir, traceDirs, inputText: text, input_file, options, trusted };
}

/**
 * Starts a prepared run: records it in the hive, creates its journal and runs the loop in the
 * background. The handle is registered as active until the run ends.
 *
 * @param prepared The prepared run.
 * @returns The run handle.
 */
export function launchRun(prepared: PreparedRun): RunHandle {
  const { run_id, loaded, traceDir, options } = prepared;
  const spec = loaded.spec;
  const trace_path = `${traceDir}/${run_id}.jsonl`;
  const started = new Date();
  let journal: JournalWriter;
  try {
    journal = createJournal(trace_path, spec.logging?.redact);
  } catch (err) {
    throw journalCreateError(err, spec.logging?.trace_dir);
  }
  const db = openHive();
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
  });
  const events = createEventStream<JournalEvent>();
  const stopper = new AbortController();
  const runSignal = linkSignals(options.signal, stopper.signal);
  const controls = createRunControls({ run_id, spec, abort: (reason) => stopper.abort(reason) });
  const result = runLoop({
    run_id,
    loaded,
    traceDirs: prepared.traceDirs,
    inputText: prepared.inputText,
    input_file: prepared.input_file,
    started,
    journal,
    events,
    signal: runSignal.signal,
    parentRunId: options.parentRunId ?? null,
    makeProvider: options.createProvider ?? createProvider,
    history: options.history ?? [],
    inputNote: options.inputNote,
    extraTools: options.extraTools ?? [],
    onText: options.onText,
    controls,
    replay: options.replay,
    delegation: options.delegation ?? { depth: 0, chain: [spec.id] },
    trusted: prepared.trusted,
    delegator: options.delegator,
    costCapUsd: options.costCapUsd,
  }).then(async (r) => {
    runSignal.dispose();
    // The journal's flush (started by the loop) and the hive's row are written side by side; the run
    // is reported finished once both are done.
    const durable = journal.close();
    try {
      finishRun(openHive(), r, { head_hash: journal.head(), events: journal.count() });
    } catch (err) {
      console.error(
        `warning: could not record the end of ${run_id} in the hive: ${(err as Error).message}`,
      );
    }
    try {
      await durable;
    } finally {
      events.close();
    }
    return r;
  });
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
