/**
 * Controlling a live run by its id, the one way every shell does it (the workbench API, the copilot's
 * tools): steer it, change its model or its mode, stop it. Each shell says which runs it shows (a
 * {@link RunFinder}); a run it does not show is as unknown to its controls as to its reads. An
 * unknown run is `not_found` (404); a run that has finished, or that runs in another process, is a
 * `conflict` (409). What a control does and when is decided by the run's loop
 * (`lib/runner/controls.ts`): at the next turn boundary, in queue order, each one journalled.
 *
 * @module
 */

import { badInput, FrameworkError } from "../errors.ts";
import type { Hive } from "../hive/open.ts";
import { getTrace } from "../journal/trace.ts";
import { activeRun } from "../runner/active_runs.ts";
import type {
  Control,
  ControlActor,
  LiveState,
  RunControls,
  SteeringMessage,
} from "../runner/control_queue.ts";
import { allowedRuntimeModel } from "../models/endpoint.ts";
import { type HarnessSpec, modelSchema, type ModelSpec } from "../spec/schema.ts";
import type { RunHandle } from "../runner/run_handle.ts";
import type { RunRow } from "../hive/runs.ts";

/**
 * How a shell finds a run by id: the runs it shows, and `not_found` for every other (the workbench
 * does not show the copilot's own runs). Its controls find runs the same way, so a run a shell hides
 * from its reads cannot be steered, changed or stopped through it either.
 */
export type RunFinder = (db: Hive, runId: string) => RunRow;

/** A live run of this process and its controls, or the reason it cannot be controlled. */
function liveRun(db: Hive, runId: string, find: RunFinder): RunHandle {
  const row = find(db, runId);
  const handle = activeRun(row.run_id);
  if (!handle) {
    throw new FrameworkError(
      "conflict",
      row.status === "running"
        ? `Run ${JSON.stringify(runId)} is going in another process; control it there`
        : `Run ${JSON.stringify(runId)} has already ended (${row.status})`,
      { run_id: row.run_id, status: row.status },
    );
  }
  return handle;
}

/**
 * The controls of a live run.
 *
 * @example
 * ```ts
 * import { openHive } from "../hive/open.ts";
 * import { findRun } from "../journal/trace.ts";
 *
 * // The runs this caller shows: here any harness's.
 * const anyRun: RunFinder = (db, runId) => findRun(db, null, runId);
 * runControls(openHive(), "run_01…", anyRun).steer("Answer in French");
 * ```
 * @param db The hive.
 * @param runId The run.
 * @param find The runs the caller shows.
 * @returns Its controls.
 * @throws `not_found` for an unknown (or hidden) run; `conflict` for one that has ended.
 */
export function runControls(db: Hive, runId: string, find: RunFinder): RunControls {
  return liveRun(db, runId, find).controls;
}

/** A live run's mode and model, and the modes it may switch to. */
export type LiveView = LiveState & { playbooks: string[] };

/**
 * A run's mode and model now, when it is live here.
 *
 * @param runId The run.
 * @returns Its live state, or null.
 */
export function liveState(runId: string): LiveView | null {
  const handle = activeRun(runId);
  if (!handle) return null;
  return {
    ...handle.controls.state,
    playbooks: (handle.spec.playbooks ?? []).map((p) => p.name),
  };
}

/**
 * The steering messages of a run, oldest first: of a live run, queued and delivered; of a finished
 * one, those its journal shows delivered.
 *
 * @param db The hive.
 * @param runId The run.
 * @param find The runs the caller shows.
 * @returns The messages.
 * @throws `not_found` for an unknown (or hidden) run.
 */
export async function steeringMessages(
  db: Hive,
  runId: string,
  find: RunFinder,
): Promise<SteeringMessage[]> {
  const row = find(db, runId);
  const handle = activeRun(row.run_id);
  if (handle) return handle.controls.messages();
  const trace = await getTrace(db, null, row.run_id);
  return trace.events.filter((e) => e.type === "steering_delivered").map((e) => ({
    id: String(e.payload.message_id),
    run_id: row.run_id,
    text: String(e.payload.text),
    status: "delivered" as const,
    created_at: e.ts,
    updated_at: e.ts,
    delivered_turn: Number(e.payload.turn),
  }));
}

/**
 * Stops a live run: at the next turn boundary (the call in flight finishes and is journalled with
 * its cost), or `now`, aborting what is in flight.
 *
 * @param db The hive.
 * @param runId The run.
 * @param how `now`, and who asks.
 * @param find The runs the caller shows.
 * @returns The control.
 */
export function stopRun(
  db: Hive,
  runId: string,
  how: { now?: boolean; by: ControlActor },
  find: RunFinder,
): Control {
  return runControls(db, runId, find).stop(how.by, how.now ?? false);
}

/**
 * Reads a model change as it arrives over HTTP or from a model: `"provider:name"` or a model block.
 * Credentials go only where the harness already sends them: the provider, `base_url` and key
 * variable must be a combination `harness.yaml` uses together ({@link allowedRuntimeModel}), so no
 * request chooses where a key is sent. The live model control and a fork's model override both
 * read their model here.
 *
 * @example
 * ```ts
 * import { loadSpec } from "../spec/load.ts";
 *
 * // harness.yaml: model {provider: openai, name: gpt-4.1}
 * const { spec } = await loadSpec("./harnesses/hello");
 * parseModelChange("openai:gpt-4.1-mini", spec); // { provider: "openai", name: "gpt-4.1-mini" }
 * ```
 * @param value The `model` field of the request.
 * @param spec The run's spec snapshot.
 * @returns The model block.
 * @throws `bad_input` saying what to send.
 */
export function parseModelChange(value: unknown, spec: HarnessSpec): ModelSpec {
  let raw: unknown = value;
  if (typeof value === "string") {
    const at = value.indexOf(":");
    const provider = at < 0 ? value : value.slice(0, at);
    const name = at < 0 ? "" : value.slice(at + 1);
    raw = { provider, ...(name ? { name } : {}) };
  }
  const scriptedWithoutScript = (raw as { provider?: unknown } | null)?.provider === "scripted" &&
    !(raw as { replies?: unknown }).replies && !(raw as { scenarios?: unknown }).scenarios;
  // A scripted model named without a script goes on with the run's (the loop decides), so the
  // schema's "needs replies" rule does not apply to it here.
  const parsed = modelSchema.safeParse(
    scriptedWithoutScript ? { ...(raw as object), replies: [] } : raw,
  );
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.length ? `model.${issue.path.join(".")}: ` : "";
    throw badInput(
      `Invalid model: ${where}${issue.message}; send "provider:name" (e.g. "openai:gpt-4.1-mini") or {"provider": …, "name": …}`,
      { field: "model" },
    );
  }
  const model = parsed.data;
  if (scriptedWithoutScript) {
    delete model.replies;
    if (spec.model.provider !== "scripted" && !spec.playbooks?.some((p) => p.model)) {
      throw badInput("A scripted model needs replies: send them in the model block", {
        field: "model",
      });
    }
  }
  return allowedRuntimeModel(model, spec);
}

/**
 * Queues a model change of a live run.
 *
 * @param db The hive.
 * @param runId The run.
 * @param model `"provider:name"` or a model block (see {@link parseModelChange}).
 * @param by Who asks.
 * @param find The runs the caller shows.
 * @returns The control.
 */
export function changeRunModel(
  db: Hive,
  runId: string,
  model: unknown,
  by: ControlActor,
  find: RunFinder,
): Control {
  const handle = liveRun(db, runId, find);
  return handle.controls.changeModel(parseModelChange(model, handle.spec), by);
}
