/**
 * The run service: the one way a shell starts a run. Each step is here once — the run is prepared
 * from a request its face has read with the run schema (spec snapshot, input, trust: the gate's proof
 * or the trust store, never a caller's word), its id is allocated, it is admitted (the capacity gate,
 * when the shell has one), launched when a slot is free, and followed by the after-run work
 * (automatic proposals, the OpenTelemetry export) — and every shell only translates: the control plane, the workbench API, the
 * CLI's `run` and `serve`, MCP, the copilot.
 *
 * @module
 */

import { maybeAutoPropose } from "../evolve/auto_propose.ts";
import { newRunId } from "../ids.ts";
import { linkSignals } from "../linked_signal.ts";
import { readRequest, RUN_REQUEST, type RunRequest } from "../requests.ts";
import type { RunResult } from "../run_types.ts";
import { launchRun } from "../runner/launch_run.ts";
import { type PreparedRun, prepareRun, type RunOptions } from "../runner/prepare_run.ts";
import type { RunHandle } from "../runner/run_handle.ts";
import { loadSpecCached } from "../harness_spec/cache.ts";
import type { TrustedFolder } from "../trust/trust_gate.ts";
import { type RunFrame, runTail } from "./frames.ts";
import { createDelegator } from "./delegator.ts";
import type { Delegator } from "../runner/delegation.ts";
import type { RunGate } from "./capacity.ts";
import { createApprovalGate, DEFAULT_MAX_WAITING_RUNS, type Slot } from "./approvals.ts";
import { openHive } from "../hive/open.ts";
import { flushTraces, queueRunTrace } from "../otel/export_queue.ts";

/** How long closing waits for the finished runs' traces to be exported, at most. */
const CLOSE_FLUSH_MS = 2000;

/** A shell's run service. */
export interface RunService {
  /**
   * Starts a run from its request, read at the face's edge with the run schema (`RUN_REQUEST`). A
   * bad `input_file` throws before anything is recorded; a full gate throws `over_capacity` (503).
   * The run starts now, or when a slot frees, whatever happens to the caller afterwards.
   */
  submit(target: HarnessTarget, request: RunRequest, options?: SubmitOptions): Promise<Submission>;
  /** Runs of this service still going. */
  active(): RunHandle[];
  /** Whether a run submitted now would start at once rather than wait for a slot. */
  startsAtOnce(): boolean;
  /**
   * Lets runs finish for up to `graceMs`, then stops the rest (each ends `error`, reason `stopped`,
   * its journal closed) and waits for them to end. A second call with a shorter grace stops them
   * sooner.
   */
  close(graceMs?: number): Promise<void>;
}

/** Which harness to run: its folder, or the trust gate's proof for its folder. */
export type HarnessTarget = string | TrustedFolder;

/**
 * Per-run options a shell may add (the copilot's history and tools, a spec snapshot, an abort
 * signal, …). Trust is never one of them: it comes from the harness target.
 */
export type SubmitOptions = Omit<RunOptions, "trusted"> & {
  /**
   * A live run of this service whose slot this run shares instead of passing the gate: a hand-off's
   * child, whose parent waits on the `delegate` call and so never works at the same time (it cannot
   * wait for its ancestor's slot, which is only freed once it has finished). Ignored unless that run
   * is live in this service.
   */
  inSlotOf?: string;
  /**
   * The run's last preparation, once it has its slot and before it is recorded (a thread's run takes
   * the thread here, waiting for the turn before it, and reads the thread's history then). What it
   * answers is added to the run's options; a throw ends the submission (the slot is freed).
   */
  beforeLaunch?: (
    prepared: PreparedRun,
    signal: AbortSignal,
  ) => Promise<Partial<RunOptions> | void>;
  /**
   * Wraps the run's launch, which records it in the hive synchronously: a thread's run checks its
   * thread and reads its history in the transaction that records its start (one commit), and hands
   * `launch` the options it read (its history). A throw before `launch` ends the submission with
   * nothing recorded, and frees the slot.
   */
  aroundLaunch?: (
    launch: (more?: Partial<RunOptions>) => RunHandle,
    prepared: PreparedRun,
  ) => RunHandle;
};

/** A submitted run. */
export interface Submission {
  run_id: string;
  harness_id: string;
  /** Whether it waits in the gate's queue. */
  queued: boolean;
  /** The run, once it has started. */
  started: Promise<RunHandle>;
  /** Its result (a run that could not start rejects). */
  result: Promise<RunResult>;
  /** Its frames: `run_accepted` at once, then `trace` frames and `run_result`. */
  frames(): AsyncGenerator<RunFrame>;
}

/** Options of {@link createRunService}. */
export interface RunServiceOptions {
  /** Run capacity (the control plane's); without one every run starts at once. */
  gate?: RunGate;
  /**
   * How many runs may wait for a person's decision at once (default 16): they wait without a slot,
   * and beyond this a request is denied at once (`too many runs waiting`).
   */
  maxWaitingRuns?: number;
}

/** A run's slot: let go while it waits for a person, taken again after, freed when it ends. */
function slotOf(admitted: () => void, gate: RunGate | undefined): Slot & { release(): void } {
  let current: (() => void) | undefined = admitted;
  const release = () => {
    current?.();
    current = undefined;
  };
  return {
    yield: release,
    async reclaim() {
      current ??= gate ? await gate.resume() : () => {};
    },
    release,
  };
}

/**
 * The after-run work of a run, in the background once it has reported its result: an automatic
 * proposal when a failure recurs (eval runs that do not count as live never feed the evolver), and
 * the run's trace queued for export when the process exports (docs/runs.md, Observability).
 */
function afterRun(run: RunHandle, loaded: PreparedRun["loaded"], live: boolean): void {
  if (live) run.result.then((r) => maybeAutoPropose(loaded, r));
  run.result.then(() => queueRunTrace(run.run_id), () => {});
}

/** A prepared run with more options (what a shell's `beforeLaunch` or `aroundLaunch` read). */
function withOptions(prepared: PreparedRun, more: Partial<RunOptions> | void): PreparedRun {
  return more ? { ...prepared, options: { ...prepared.options, ...more } } : prepared;
}

/**
 * Creates a shell's run service.
 *
 * @example
 * ```ts
 * import { trustGate } from "../trust/trust_gate.ts";
 * import { createRunGate } from "./capacity.ts";
 *
 * const trusted = await trustGate(await Deno.realPath("./harnesses/hello"), { approve: true });
 * const runs = createRunService({ gate: createRunGate({ maxConcurrent: 1, maxQueued: 4 }) });
 * const run = await runs.submit(trusted, { input: "hi" });
 * console.log(await run.result);
 * ```
 * @param options The gate.
 * @returns The service.
 */
export function createRunService(options: RunServiceOptions = {}): RunService {
  const shutdown = new AbortController();
  // Aborted when closing starts: runs waiting for a person stop at once, their requests pending.
  const closing = new AbortController();
  const mine = new Map<string, RunHandle>();
  // Per live run, the runs working in its slot: each settles once it and its own guests have ended.
  const guestsOf = new Map<string, Set<Promise<void>>>();
  // Runs waiting for a person's decision, without a slot.
  const waiting = { count: 0, max: options.maxWaitingRuns ?? DEFAULT_MAX_WAITING_RUNS };
  // Runs of harnesses with peers hand tasks over through this same service.
  const delegator = (): Delegator => createDelegator(service);
  const service: RunService = {
    async submit(target, request, { inSlotOf, beforeLaunch, aroundLaunch, ...submitOptions } = {}) {
      const dir = typeof target === "string" ? target : target.dir;
      const stop = linkSignals(shutdown.signal, submitOptions.signal);
      let prepared: PreparedRun;
      try {
        const spec = submitOptions.spec ?? await loadSpecCached(dir);
        prepared = await prepareRun(dir, request, {
          ...submitOptions,
          ...(spec.spec.delegation?.peers?.length && !submitOptions.delegator
            ? { delegator: delegator() }
            : {}),
          // A snapshot of the spec, parsed once per change of the file.
          spec,
          ...(typeof target === "string" ? {} : { trusted: target }),
          signal: stop.signal,
        });
      } catch (err) {
        stop.dispose();
        throw err;
      }
      // Run ids sort by time: allocated here, right before admission, they follow the queue's order.
      const run_id = submitOptions.runId ?? newRunId();
      // A hand-off's child works in its parent's slot; every other run passes the gate.
      const host = inSlotOf === undefined ? undefined : guestsOf.get(inSlotOf);
      const admission = host ? undefined : options.gate?.admit();
      const started: Promise<RunHandle> = (admission?.ready ?? Promise.resolve(() => {})).then(
        async (admitted) => {
          const slot = slotOf(admitted, host ? undefined : options.gate);
          try {
            prepared = withOptions(prepared, await beforeLaunch?.(prepared, stop.signal));
            const { spec, dir } = prepared.loaded;
            const approvals = createApprovalGate({
              db: openHive(),
              harness: { id: spec.id, dir },
              spec,
              runId: run_id,
              startedBy: prepared.options.startedBy ?? null,
              slot,
              waiting,
              shuttingDown: closing.signal,
            });
            if (approvals) prepared = withOptions(prepared, { approvals });
            const launch = (more?: Partial<RunOptions>) =>
              launchRun(withOptions(prepared, more), run_id);
            const run = aroundLaunch ? aroundLaunch(launch, prepared) : launch();
            mine.set(run.run_id, run);
            const guests = new Set<Promise<void>>();
            guestsOf.set(run.run_id, guests);
            // The slot frees once the run and every run working in it have ended (a stopped
            // parent does not hand its slot on while its child is still winding down).
            const ended = run.result.then(async () => {
              stop.dispose();
              mine.delete(run.run_id);
              guestsOf.delete(run.run_id);
              await Promise.allSettled(guests);
            });
            host?.add(ended);
            ended.finally(slot.release);
            afterRun(run, prepared.loaded, submitOptions.evaluation?.live !== false);
            return run;
          } catch (err) {
            slot.release();
            stop.dispose();
            throw err;
          }
        },
      );
      started.catch(() => {}); // a run that could not start rejects `result` and `frames` instead
      const harness_id = prepared.loaded.spec.id;
      return {
        run_id,
        harness_id,
        queued: admission?.queued ?? false,
        started,
        result: started.then((run) => run.result),
        async *frames() {
          yield {
            frame: "run_accepted",
            run_id,
            harness_id,
            ...(submitOptions.threadId ? { thread_id: submitOptions.threadId } : {}),
            ...(admission ? { queued: admission.queued } : {}),
          };
          yield* runTail(await started);
        },
      };
    },
    active: () => [...mine.values()],
    startsAtOnce: () => options.gate?.hasFreeSlot() ?? true,
    async close(graceMs = 10_000) {
      closing.abort();
      const runs = [...mine.values()];
      let timer: ReturnType<typeof setTimeout> | undefined;
      const grace = new Promise((r) => (timer = setTimeout(r, graceMs)));
      await Promise.race([Promise.allSettled(runs.map((r) => r.result)), grace]);
      clearTimeout(timer);
      shutdown.abort(new Error("The service is shutting down"));
      // Runs started during the grace period too: each ends (stopped) with its journal closed.
      await Promise.allSettled([...runs, ...mine.values()].map((r) => r.result));
      // Their traces get a moment to leave, never more.
      await flushTraces(CLOSE_FLUSH_MS);
    },
  };
  return service;
}

/**
 * Starts one run and returns at once with its handle (the library's and the tests' way): its request
 * read with the run schema, prepared, trust-checked and followed by the after-run work like every
 * other run, without a capacity gate.
 *
 * @example
 * ```ts
 * const run = await startRun("./harnesses/hello", { input: "Hi" });
 * for await (const e of run.events) console.log(e.seq, e.type);
 * const result = await run.result;
 * ```
 * @param target The harness folder (or the trust gate's proof for it).
 * @param body `input` and/or `input_file` (anything else is `bad_input`).
 * @param options A pre-allocated id, a parent, a spec snapshot, an abort signal.
 * @returns The run handle.
 */
export async function startRun(
  target: HarnessTarget,
  body: unknown,
  options: SubmitOptions = {},
): Promise<RunHandle> {
  const request = readRequest(RUN_REQUEST, body);
  return await (await createRunService().submit(target, request, options)).started;
}
