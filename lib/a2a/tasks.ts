/**
 * Runs as A2A tasks (docs/control-plane.md, A2A): the task id is the run id, the context id the
 * thread id, and the state is decided here once — a live run is `working` (`input-required` while it
 * waits for a person's decision on a tool call), `success` is `completed`, a stopped run (status
 * `error`, reason `stopped`: cancelled through A2A, or by a person) is `canceled`, and every other
 * status is `failed`, the run's status kept in the task's metadata with its cost and turns. The
 * run's output is the task's one artifact, `text/plain`. Objects are in the protocol's JSON form
 * (camelCase, `TASK_STATE_*` and `ROLE_*` names), as the official SDK reads them.
 *
 * @module
 */

import { runOutcome, type RunResult, STOPPED_REASON } from "../run_types.ts";

/** The task states this face reports. */
export type TaskState =
  | "submitted"
  | "working"
  | "input_required"
  | "completed"
  | "canceled"
  | "failed";

/** A task's state on the wire. */
export function wireState(state: TaskState): string {
  return `TASK_STATE_${state.toUpperCase()}`;
}

/**
 * The A2A state of a run.
 *
 * @example
 * ```ts
 * taskState({ status: "running" }, true); // "input_required"
 * taskState({ status: "error", reason: "stopped" }, false); // "canceled"
 * taskState({ status: "max_turns" }, false); // "failed"
 * ```
 * @param run Its status (`running` while live) and, for an error, its reason.
 * @param waiting Whether it waits for a person's decision now.
 * @returns The state.
 */
export function taskState(
  run: { status: string; reason?: string | null },
  waiting: boolean,
): TaskState {
  if (run.status === "running") return waiting ? "input_required" : "working";
  if (run.status === "success") return "completed";
  return runOutcome(run.status, run.reason) === STOPPED_REASON ? "canceled" : "failed";
}

/**
 * The A2A state of a finished run, from its result.
 *
 * @param result The run's result.
 * @returns `completed`, `canceled` or `failed`.
 */
export function resultState(result: RunResult): TaskState {
  return taskState({ status: result.status, reason: result.error?.reason ?? null }, false);
}

/** What a task object is made from. */
export interface TaskFacts {
  run_id: string;
  thread_id: string;
  harness_id: string;
  state: TaskState;
  /** The finished run's result; null while it goes on. */
  result: RunResult | null;
  /** Words for the status message (the answer of a finished run is its artifact instead). */
  note?: string;
  /** What the run has cost so far (a live run's running total). */
  cost_usd?: number;
}

/** An agent message of a task (its status message). */
function agentMessage(f: TaskFacts, text: string): Record<string, unknown> {
  return {
    messageId: `${f.run_id}-${f.state}`,
    contextId: f.thread_id,
    taskId: f.run_id,
    role: "ROLE_AGENT",
    parts: [{ text, mediaType: "text/plain" }],
  };
}

/** A task's status: its state, the time, and a message when there are words to say. */
export function taskStatus(f: TaskFacts): Record<string, unknown> {
  const failure = f.result?.error ? `${f.result.error.reason}: ${f.result.error.message}` : null;
  const text = f.note ?? (f.state === "completed" ? f.result?.output : failure) ?? null;
  return {
    state: wireState(f.state),
    ...(text ? { message: agentMessage(f, text) } : {}),
    timestamp: f.result?.ended_at ?? new Date().toISOString(),
  };
}

/** A task's metadata: the harness and run status, with cost and turns once known. */
export function taskMetadata(f: TaskFacts): Record<string, unknown> {
  const r = f.result;
  if (!r) {
    return {
      harness_id: f.harness_id,
      status: f.state === "input_required" ? "awaiting_approval" : "running",
      ...(f.cost_usd !== undefined ? { cost_usd: f.cost_usd } : {}),
    };
  }
  return {
    harness_id: r.harness_id,
    status: r.status,
    ...(r.error ? { reason: r.error.reason } : {}),
    cost_usd: r.cost_usd,
    turns: r.turns,
    spec_version: r.spec_version,
  };
}

/** The output of a finished run as the task's artifact. */
export function outputArtifact(result: RunResult): Record<string, unknown> {
  return {
    artifactId: `${result.run_id}-output`,
    name: "output",
    parts: [{ text: result.output, mediaType: "text/plain" }],
  };
}

/**
 * A run as an A2A task object.
 *
 * @param f The run's facts.
 * @returns The task, in the protocol's JSON form.
 */
export function taskObject(f: TaskFacts): Record<string, unknown> {
  return {
    id: f.run_id,
    contextId: f.thread_id,
    status: taskStatus(f),
    ...(f.result?.output ? { artifacts: [outputArtifact(f.result)] } : {}),
    metadata: taskMetadata(f),
  };
}

/**
 * A finished run's task as a blocking `SendMessage` answers it: {@link taskObject}'s fields with the
 * artifact after the metadata (the order its stream's events build it in, which that answer keeps).
 *
 * @param f The run's facts.
 * @returns The task, in the protocol's JSON form.
 */
export function sentTask(f: TaskFacts): Record<string, unknown> {
  return {
    id: f.run_id,
    contextId: f.thread_id,
    status: taskStatus(f),
    metadata: taskMetadata(f),
    ...(f.result?.output ? { artifacts: [outputArtifact(f.result)] } : {}),
  };
}
