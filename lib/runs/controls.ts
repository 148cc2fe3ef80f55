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
import * as z from "zod";
import { MODEL_CHOICE, namesScriptOnly } from "../harness_spec/model_choice.ts";
import type { HarnessSpec, ModelSpec } from "../harness_spec/schema.ts";
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

/** `POST /api/runs/{id}/model`: the model, read by the model-choice schema. */
export const MODEL_CHANGE_REQUEST = {
  schema: z.strictObject({ model: MODEL_CHOICE }),
  what: "model change",
  example: '{"model": "openai:gpt-4.1-mini"} or {"model": {"provider": "…", "name": "…"}}',
};

/**
 * Whether a run of this spec may use a chosen model, and the model it then uses. Credentials go only
 * where the harness already sends them: the provider, `base_url` and key variable must be a
 * combination `harness.yaml` uses together ({@link allowedRuntimeModel}), so no request chooses
 * where a key is sent. A scripted model named without a script needs a scripted harness. The live
 * model control and a fork's model override both decide here.
 *
 * @example
 * ```ts
 * import { loadSpec } from "../harness_spec/load.ts";
 * import { MODEL_CHOICE } from "../harness_spec/model_choice.ts";
 *
 * // harness.yaml: model {provider: openai, name: gpt-4.1}
 * const { spec } = await loadSpec("./harnesses/hello");
 * runtimeModel(MODEL_CHOICE.parse("openai:gpt-4.1-mini"), spec); // { provider: "openai", … }
 * ```
 * @param model The chosen model (read by {@link MODEL_CHOICE}).
 * @param spec The run's spec snapshot.
 * @returns The model block the run may use.
 * @throws `bad_input` saying what the harness allows.
 */
export function runtimeModel(model: ModelSpec, spec: HarnessSpec): ModelSpec {
  if (
    namesScriptOnly(model) && spec.model.provider !== "scripted" &&
    !spec.playbooks?.some((p) => p.model)
  ) {
    throw badInput("A scripted model needs replies: send them in the model block", {
      field: "model",
    });
  }
  return allowedRuntimeModel(model, spec);
}

/**
 * Queues a model change of a live run.
 *
 * @param db The hive.
 * @param runId The run.
 * @param model The chosen model (read by the model-choice schema).
 * @param by Who asks.
 * @param find The runs the caller shows.
 * @returns The control.
 */
export function changeRunModel(
  db: Hive,
  runId: string,
  model: ModelSpec,
  by: ControlActor,
  find: RunFinder,
): Control {
  const handle = liveRun(db, runId, find);
  return handle.controls.changeModel(runtimeModel(model, handle.spec), by);
}
