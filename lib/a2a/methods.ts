/**
 * The A2A methods over the run service (docs/control-plane.md, A2A). A message is a run of the
 * served harness in a thread owned by the calling key: a new thread without a context id, the named
 * one with it (so a second message continues the conversation, given its earlier turns, as every
 * thread's run is), refused while a run of it goes on. `SendMessage` answers the task once it has
 * ended or waits for a person (`returnImmediately`: at once); `SendStreamingMessage` streams the
 * task, a `working` status update as the run starts and after each model call (with the cost so
 * far in its metadata), the output as an artifact, and the final status; the stream ends when the
 * task does, or when it waits for a person's decision (`input-required`; deciding it through A2A is
 * not offered: it is decided on the control plane). `GetTask` reads a task as it stands;
 * `CancelTask` stops the run now (journal `run_stopped`) and answers it `canceled`. A caller may
 * lower a run's cost cap with `metadata.max_cost_usd` (a delegating framework peer sends its
 * hand-off's cap so); nothing in a request picks a model, a tool, a file or an address.
 *
 * @module
 */

import { FrameworkError } from "../errors.ts";
import { hasPendingApproval } from "../hive/approvals.ts";
import type { HarnessRef } from "../hive/harnesses.ts";
import type { Hive } from "../hive/open.ts";
import { getRun, type RunRow } from "../hive/runs.ts";
import { getThread, isUnknownThread, turnOutput } from "../hive/threads.ts";
import type { SseFrame } from "../http/sse.ts";
import { getTrace } from "../journal/trace.ts";
import type { Principal } from "../keys/authenticate.ts";
import { readRequest } from "../requests.ts";
import type { RunResult } from "../run_types.ts";
import { activeRun } from "../runner/active_runs.ts";
import { stopRun } from "../runs/controls.ts";
import { recordedResult } from "../runs/recorded_result.ts";
import type { HarnessTarget, RunService, Submission } from "../runs/service.ts";
import { startThread, submitToThread, threadViewer } from "../runs/threads.ts";
import {
  invalidParams,
  messageText,
  readRpc,
  RPC_CODES,
  RpcError,
  rpcHttpError,
  rpcIdOf,
  type RpcRequest,
  rpcResult,
  SEND_PARAMS,
  TASK_PARAMS,
  unknownContext,
  unsupported,
} from "./rpc.ts";
import {
  outputArtifact,
  resultState,
  sentTask,
  type TaskFacts,
  taskMetadata,
  taskObject,
  type TaskState,
  taskState,
  taskStatus,
} from "./tasks.ts";

/** The control plane as the A2A methods use it. */
export interface A2aPlane {
  db: Hive;
  runs: RunService;
  /** The harness folder's trust proof (what `/run` passes). */
  target: HarnessTarget;
  harness: HarnessRef;
}

/** What a method answers: a JSON-RPC response, or its stream's responses as server-sent events. */
export type A2aAnswer =
  | { stream: false; body: Record<string, unknown> }
  | { stream: true; frames: AsyncGenerator<SseFrame> };

/** An answer at `/a2a` as HTTP: a JSON body with its status and headers, or events. */
export type A2aHttpAnswer =
  | {
    stream: false;
    status: number;
    headers: Record<string, string>;
    body: Record<string, unknown>;
  }
  | { stream: true; frames: AsyncGenerator<SseFrame> };

/**
 * Answers a body posted to `/a2a` by an authorized caller: the JSON-RPC request read, its method
 * called, and any error as a JSON-RPC error (a full queue 503 with `Retry-After`).
 *
 * @param plane The served harness, its run service and the hive.
 * @param body The parsed body.
 * @param who The caller.
 * @returns The answer.
 */
export async function a2aRequest(
  plane: A2aPlane,
  body: unknown,
  who: Principal,
): Promise<A2aHttpAnswer> {
  try {
    const answer = await a2aCall(plane, readRpc(body), who);
    return answer.stream ? answer : { stream: false, status: 200, headers: {}, body: answer.body };
  } catch (err) {
    return { stream: false, ...rpcHttpError(rpcIdOf(body), err) };
  }
}

/** A stream response: one of `task`, `statusUpdate`, `artifactUpdate`. */
type StreamEvent = Record<string, unknown>;

/**
 * Answers one A2A request.
 *
 * @example
 * ```ts
 * import type { Principal } from "../keys/authenticate.ts";
 * import { readRpc } from "./rpc.ts";
 *
 * declare const plane: A2aPlane;
 * declare const who: Principal;
 * const answer = await a2aCall(plane, readRpc({
 *   jsonrpc: "2.0",
 *   id: 1,
 *   method: "SendMessage",
 *   params: { message: { messageId: "m1", role: "ROLE_USER", parts: [{ text: "Hi" }] } },
 * }), who);
 * if (!answer.stream) console.log(answer.body); // {jsonrpc: "2.0", id: 1, result: {task: {…}}}
 * ```
 * @param plane The served harness, its run service and the hive.
 * @param rpc The request, read.
 * @param who The caller: the thread's owner, the run's `startedBy`.
 * @returns The response, or the stream.
 * @throws `RpcError` or a framework error (`over_capacity` when the queue is full), answered by the
 *   route as a JSON-RPC error.
 */
export async function a2aCall(
  plane: A2aPlane,
  rpc: RpcRequest,
  who: Principal,
): Promise<A2aAnswer> {
  switch (rpc.method) {
    case "SendMessage":
    case "SendStreamingMessage": {
      const { submission, thread_id, immediate } = await sendMessage(plane, rpc.params, who);
      if (rpc.method === "SendStreamingMessage") {
        return { stream: true, frames: framed(rpc, taskEvents(plane, submission, thread_id)) };
      }
      // `returnImmediately`: the task as it stands now.
      if (immediate) {
        return {
          stream: false,
          body: rpcResult(rpc.id, { task: firstTask(plane, submission, thread_id) }),
        };
      }
      // A blocking answer follows the run's events only when it may stop at a person's decision
      // (input required); else the task it answers is made from the run's result alone, once.
      if ((await submission.started).spec.approvals === undefined) {
        const result = await submission.result;
        const task = sentTask(taskFacts(plane, submission, thread_id, resultState(result), result));
        return { stream: false, body: rpcResult(rpc.id, { task }) };
      }
      let task: Record<string, unknown> = {};
      for await (const e of taskEvents(plane, submission, thread_id)) task = mergeEvent(task, e);
      return { stream: false, body: rpcResult(rpc.id, { task }) };
    }
    case "GetTask": {
      const { id } = invalidParams(() => readRequest(TASK_PARAMS, rpc.params));
      return { stream: false, body: rpcResult(rpc.id, await readTask(plane, id, who)) };
    }
    case "CancelTask": {
      const { id } = invalidParams(() => readRequest(TASK_PARAMS, rpc.params));
      return { stream: false, body: rpcResult(rpc.id, await cancelTask(plane, id, who)) };
    }
  }
}

/** Starts the run a message asks for, in its thread. */
async function sendMessage(
  plane: A2aPlane,
  params: Record<string, unknown>,
  who: Principal,
): Promise<{ submission: Submission; thread_id: string; immediate: boolean }> {
  const { db, harness } = plane;
  const request = invalidParams(() => readRequest(SEND_PARAMS, params));
  const { message } = request;
  if (message.taskId) {
    throw unsupported(
      "Continuing a task is not offered: a task waiting for input waits for a person's decision on a tool call, made on the control plane (POST /approvals/{id}); send a new message (with its contextId) instead",
    );
  }
  const input = messageText(message.parts);
  const contextId = message.contextId || null;
  const cap = request.metadata?.max_cost_usd;
  const options = { startedBy: who.key_id, ...(cap !== undefined ? { costCapUsd: cap } : {}) };
  const immediate = request.configuration?.returnImmediately === true;
  if (contextId === null) {
    const started = await startThread(
      db,
      plane.runs,
      plane.target,
      harness,
      {
        owner: who.key_id,
        metadata: {},
      },
      { input },
      options,
    );
    return { submission: started.submission, thread_id: started.thread.thread_id, immediate };
  }
  let sent;
  try {
    sent = await submitToThread(db, plane.runs, plane.target, harness, contextId, { input }, {
      viewer: threadViewer(who),
      ...options,
    });
  } catch (err) {
    // The thread is looked up first: its not-found is the context's.
    if (isUnknownThread(err, contextId)) throw unknownContext(contextId);
    throw err;
  }
  if (sent.kind !== "run") throw new Error("unreachable: a refused busy thread never steers");
  return { submission: sent.submission, thread_id: contextId, immediate };
}

/** A task object updated by a stream event. */
function mergeEvent(task: Record<string, unknown>, e: StreamEvent): Record<string, unknown> {
  if (e.task) return e.task as Record<string, unknown>;
  const status = e.statusUpdate as Record<string, unknown> | undefined;
  if (status) return { ...task, status: status.status, metadata: status.metadata };
  const artifact = (e.artifactUpdate as Record<string, unknown> | undefined)?.artifact;
  if (artifact) return { ...task, artifacts: [artifact] };
  return task;
}

/** The stream's events as JSON-RPC responses; a failure after it began is its last one. */
async function* framed(rpc: RpcRequest, events: AsyncGenerator<StreamEvent>) {
  try {
    for await (const e of events) yield { data: rpcResult(rpc.id, e) };
  } catch (err) {
    const e = err instanceof RpcError ? err : new RpcError(
      RPC_CODES.INTERNAL_ERROR,
      err instanceof FrameworkError ? err.message : "The run failed before it started",
    );
    yield { data: { jsonrpc: "2.0", id: rpc.id, error: { code: e.code, message: e.message } } };
  }
}

/** The facts of a message's task: its run, thread and harness, in a state, with its result once ended. */
function taskFacts(
  plane: A2aPlane,
  submission: Submission,
  threadId: string,
  state: TaskState,
  result: RunResult | null,
): TaskFacts {
  return {
    run_id: submission.run_id,
    thread_id: threadId,
    harness_id: plane.harness.id,
    state,
    result,
  };
}

/** A message's task as it is answered first: `submitted` while its run waits for a slot, else `working`. */
function firstTask(
  plane: A2aPlane,
  submission: Submission,
  threadId: string,
): Record<string, unknown> {
  return taskObject(
    taskFacts(plane, submission, threadId, submission.queued ? "submitted" : "working", null),
  );
}

/**
 * A run's task as it goes: the task, status updates, the output artifact, the final status (or the
 * `input-required` status, where it stops).
 */
async function* taskEvents(
  plane: A2aPlane,
  submission: Submission,
  threadId: string,
): AsyncGenerator<StreamEvent> {
  const base = { run_id: submission.run_id, thread_id: threadId, harness_id: plane.harness.id };
  const ids = { taskId: submission.run_id, contextId: threadId };
  const update = (f: TaskFacts): StreamEvent => ({
    statusUpdate: { ...ids, status: taskStatus(f), metadata: taskMetadata(f) },
  });
  yield { task: firstTask(plane, submission, threadId) };
  let cost = 0;
  for await (const frame of submission.frames()) {
    if (frame.frame !== "trace") continue;
    if (frame.type === "run_started") {
      yield update({ ...base, state: "working", result: null, cost_usd: 0 });
    } else if (frame.type === "model_response") {
      const call = frame.payload.cost_usd;
      if (typeof call === "number") cost += call;
      yield update({ ...base, state: "working", result: null, cost_usd: cost });
    } else if (frame.type === "approval_requested") {
      const p = frame.payload as { tool?: string; approval_id?: string };
      yield update({
        ...base,
        state: "input_required",
        result: null,
        cost_usd: cost,
        note:
          `The run waits for a person's decision on ${p.tool} (approval ${p.approval_id}): decide it on the control plane (POST /approvals/${p.approval_id}); the task goes on then (GetTask reads it)`,
      });
      return;
    } else if (frame.type === "run_finished") {
      break;
    }
  }
  const result = await submission.result;
  if (result.output) {
    yield { artifactUpdate: { ...ids, artifact: outputArtifact(result), lastChunk: true } };
  }
  yield update({ ...base, state: resultState(result), result });
}

/** A run of this harness in a thread the caller may see, or a task not found. */
function locate(plane: A2aPlane, id: string, who: Principal): RunRow & { thread_id: string } {
  const unknown = () =>
    new RpcError(RPC_CODES.TASK_NOT_FOUND, `Unknown task ${JSON.stringify(id)}`, { id });
  const run = getRun(plane.db, plane.harness, id);
  if (!run?.thread_id) throw unknown();
  try {
    getThread(plane.db, plane.harness, run.thread_id, threadViewer(who));
  } catch {
    throw unknown();
  }
  return run as RunRow & { thread_id: string };
}

/** A task from its run's result, once it has ended. */
function endedTask(plane: A2aPlane, run: RunRow & { thread_id: string }, result: RunResult) {
  return taskObject({
    run_id: run.run_id,
    thread_id: run.thread_id,
    harness_id: plane.harness.id,
    state: resultState(result),
    result,
  });
}

/** A task as it stands: live (working, or input-required), or ended (from its journal). */
async function readTask(plane: A2aPlane, id: string, who: Principal) {
  const run = locate(plane, id, who);
  if (run.status === "running") {
    return taskObject({
      run_id: run.run_id,
      thread_id: run.thread_id,
      harness_id: plane.harness.id,
      state: taskState(run, hasPendingApproval(plane.db, run.run_id)),
      result: null,
      cost_usd: run.cost_usd,
    });
  }
  const { events } = await getTrace(plane.db, plane.harness, run.run_id);
  const output = turnOutput(plane.db, run.thread_id, run.run_id);
  return endedTask(plane, run, recordedResult(events, run, output));
}

/** Stops a live task now and answers it once its run has ended (`canceled`). */
async function cancelTask(plane: A2aPlane, id: string, who: Principal) {
  const run = locate(plane, id, who);
  const live = activeRun(run.run_id);
  if (run.status !== "running" || !live) {
    throw new RpcError(
      RPC_CODES.TASK_NOT_CANCELABLE,
      run.status === "running"
        ? `Task ${JSON.stringify(id)} runs in another process: cancel it there`
        : `Task ${JSON.stringify(id)} has already ended (${run.status})`,
      { id },
    );
  }
  stopRun(plane.db, run.run_id, { now: true, by: `a2a:${who.key_id}` }, () => run);
  return endedTask(plane, run, await live.result);
}
