/**
 * The controls of one live run: steering messages, model and playbook changes, and stop. They are
 * queued in one list, in the order they arrive, and the loop takes them only at a turn boundary (no
 * model call or tool in flight); each one it applies becomes one journal event
 * (docs/workbench-api.md, Live runs). A queued steering message stays readable, editable and
 * deletable until the loop takes it; from then on it is delivered — read-only, with the turn whose
 * model call receives it — even while an earlier control of the same boundary (a playbook gate)
 * still runs. `stop({now: true})` does not wait: it aborts what is in flight at once.
 *
 * @module
 */

import { badInput, FrameworkError, notFound } from "../errors.ts";
import { newId } from "../ids.ts";
import type { HarnessSpec, ModelSpec } from "../harness_spec/schema.ts";

/** A steering message (docs/workbench-api.md, Live runs). */
export interface SteeringMessage {
  id: string;
  run_id: string;
  text: string;
  status: "queued" | "delivered" | "deleted";
  created_at: string;
  updated_at: string;
  /** The turn whose model call first held it. */
  delivered_turn: number | null;
}

/** A queued control (docs/workbench-api.md, Live runs). */
export interface Control {
  id: string;
  kind: "stop" | "model" | "playbook";
  status: "queued";
  created_at: string;
}

/** Who asked for a control: a person, the copilot, the model itself, or the server shutting down. */
export type ControlActor = string;

/** A live run's current mode and model, as `provider:name`. */
export interface LiveState {
  playbook: string | null;
  model: string;
}

/** One item of the queue, as the loop takes it. */
export type ControlItem =
  | { kind: "message"; message: SteeringMessage }
  | { kind: "model"; control: Control; model: ModelSpec; by: ControlActor }
  | { kind: "playbook"; control: Control; name: string; by: ControlActor }
  | { kind: "stop"; control: Control; by: ControlActor };

/** The controls of a live run. */
export interface RunControls {
  readonly run_id: string;
  /** What the run uses now (kept current by the loop): its mode and its model. */
  readonly state: LiveState;
  /** Queues a steering message. */
  steer(text: string): SteeringMessage;
  /** Queued and delivered messages, oldest first. */
  messages(): SteeringMessage[];
  /** Edits a queued message in place (keeps its place in the queue). */
  edit(messageId: string, text: string): SteeringMessage;
  /** Deletes a queued message. */
  remove(messageId: string): void;
  /** Queues a model change: the next model call uses it. */
  changeModel(model: ModelSpec, by: ControlActor): Control;
  /** Queues a switch of playbook (mode). */
  switchPlaybook(name: string, by: ControlActor): Control;
  /** Queues a stop at the next boundary, or (`now`) aborts what is in flight at once. */
  stop(by: ControlActor, now?: boolean): Control;
  /** Whether anything is queued. */
  pending(): boolean;
  /**
   * Takes what is queued, in order, up to and including the first stop (the loop, at a turn
   * boundary). Each message taken is delivered from now on, for `turn`: readable, no longer editable.
   */
  take(turn: number): ControlItem[];
  /** Who stopped the run at once, if someone did. */
  stoppedNow(): ControlActor | undefined;
  /** Ends the controls: the run has finished, and every later control is a conflict. */
  close(): void;
}

/** What the controls need from the run. */
export interface ControlsOptions {
  run_id: string;
  /** The spec snapshot (playbook names are checked against it). */
  spec: HarnessSpec;
  /** Aborts the run at once (`stop` with `now`). */
  abort(reason: Error): void;
}

/** The longest steering message, in characters. */
export const MAX_STEERING_CHARS = 20_000;

function checkText(text: string): string {
  if (!text.trim()) throw badInput("A steering message needs some text", { field: "text" });
  if (text.length > MAX_STEERING_CHARS) {
    throw badInput(
      `A steering message is at most ${MAX_STEERING_CHARS} characters; this one has ${text.length}`,
      { field: "text" },
    );
  }
  return text;
}

/** The queue of one run, as its controls keep it. */
interface QueueState {
  readonly run_id: string;
  readonly spec: HarnessSpec;
  /** Queued controls, in the order they came. */
  items: ControlItem[];
  /** Messages taken by a boundary, oldest first. */
  readonly delivered: SteeringMessage[];
  closed: boolean;
  /** Who stopped the run at once, if someone did. */
  nowBy?: ControlActor;
}

/** Refuses every control once the run has ended. */
function ensureOpen(q: QueueState): void {
  if (q.closed) {
    throw new FrameworkError("conflict", `Run ${JSON.stringify(q.run_id)} has already ended`, {
      run_id: q.run_id,
    });
  }
}

/** A queued message by id: a delivered one is a conflict, an unknown one not found. */
function queuedMessage(q: QueueState, messageId: string): SteeringMessage {
  const item = q.items.find((i) => i.kind === "message" && i.message.id === messageId);
  if (item?.kind === "message") return item.message;
  const taken = q.delivered.find((m) => m.id === messageId);
  if (taken) {
    throw new FrameworkError(
      "conflict",
      `Message ${
        JSON.stringify(messageId)
      } was delivered to the model (turn ${taken.delivered_turn}); it can no longer change`,
      { id: messageId },
    );
  }
  throw notFound(`No queued message ${JSON.stringify(messageId)} in run ${q.run_id}`, {
    id: messageId,
  });
}

/** A new control record. */
function newControl(kind: Control["kind"]): Control {
  return { id: newId("ctl"), kind, status: "queued", created_at: new Date().toISOString() };
}

/** Refuses a playbook the spec does not have, naming those it has. */
function checkPlaybook(spec: HarnessSpec, name: string): void {
  const names = (spec.playbooks ?? []).map((p) => p.name);
  if (names.includes(name)) return;
  throw badInput(
    names.length
      ? `No playbook named ${JSON.stringify(name)}; playbooks: ${names.join(", ")}`
      : `The harness ${JSON.stringify(spec.id)} has no playbooks; add one under playbooks:`,
    { field: "name" },
  );
}

/**
 * Takes what is queued up to and including the first stop; each message taken is delivered from
 * now on, so it never leaves the listing while the boundary works through the controls before it (a
 * playbook gate may take a while).
 */
function takeControls(q: QueueState, turn: number): ControlItem[] {
  if (q.items.length === 0) return [];
  // Nothing after a stop is applied: it stays queued until the run ends.
  const stop = q.items.findIndex((i) => i.kind === "stop");
  const taken = stop < 0 ? q.items : q.items.slice(0, stop + 1);
  q.items = stop < 0 ? [] : q.items.slice(stop + 1);
  const now = new Date().toISOString();
  for (const item of taken) {
    if (item.kind !== "message") continue;
    item.message.status = "delivered";
    item.message.delivered_turn = turn;
    item.message.updated_at = now;
    q.delivered.push(item.message);
  }
  return taken;
}

/**
 * Creates the controls of a run.
 *
 * @example
 * ```ts
 * import { loadSpec } from "../harness_spec/load.ts";
 *
 * const { spec } = await loadSpec("./harnesses/hello");
 * const stopper = new AbortController(); // what the run's work listens to
 * const controls = createRunControls({
 *   run_id: "run_01…",
 *   spec,
 *   abort: (e) => stopper.abort(e),
 * });
 * controls.steer("Answer in French");
 * controls.take(1); // [{ kind: "message", message: {…, status: "delivered", delivered_turn: 1} }]
 * ```
 * @param options The run's id and spec, and how to abort it.
 * @returns The controls.
 */
export function createRunControls(options: ControlsOptions): RunControls {
  const { run_id, spec } = options;
  const q: QueueState = { run_id, spec, items: [], delivered: [], closed: false };
  const enqueue = (item: ControlItem): void => {
    ensureOpen(q);
    q.items.push(item);
  };
  return {
    run_id,
    state: { playbook: null, model: modelLabel(spec.model) },
    steer(text) {
      ensureOpen(q);
      const now = new Date().toISOString();
      const message: SteeringMessage = {
        id: newId("msg"),
        run_id,
        text: checkText(text),
        status: "queued",
        created_at: now,
        updated_at: now,
        delivered_turn: null,
      };
      q.items.push({ kind: "message", message });
      return { ...message };
    },
    messages() {
      const waiting = q.items.flatMap((i) => i.kind === "message" ? [i.message] : []);
      // Each boundary takes the queue from its start, so every delivered message is older than
      // every queued one: this is oldest first.
      return [...q.delivered, ...waiting].map((m) => ({ ...m }));
    },
    edit(messageId, text) {
      ensureOpen(q);
      const message = queuedMessage(q, messageId);
      message.text = checkText(text);
      message.updated_at = new Date().toISOString();
      return { ...message };
    },
    remove(messageId) {
      ensureOpen(q);
      const message = queuedMessage(q, messageId);
      q.items = q.items.filter((i) => !(i.kind === "message" && i.message === message));
    },
    changeModel(model, by) {
      const control = newControl("model");
      enqueue({ kind: "model", control, model, by });
      return control;
    },
    switchPlaybook(name, by) {
      ensureOpen(q);
      checkPlaybook(spec, name);
      const control = newControl("playbook");
      enqueue({ kind: "playbook", control, name, by });
      return control;
    },
    stop(by, now = false) {
      ensureOpen(q);
      const control = newControl("stop");
      if (!now) {
        q.items.push({ kind: "stop", control, by });
        return control;
      }
      q.nowBy ??= by;
      options.abort(new Error("The run was stopped"));
      return control;
    },
    pending: () => q.items.length > 0,
    take: (turn) => takeControls(q, turn),
    stoppedNow: () => q.nowBy,
    close() {
      q.closed = true;
    },
  };
}

/**
 * A model as people write it: `provider:name` (or the provider alone).
 *
 * @param model The model block.
 * @returns The label.
 */
export function modelLabel(model: ModelSpec): string {
  return model.name ? `${model.provider}:${model.name}` : model.provider;
}
