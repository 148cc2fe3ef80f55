/**
 * `POST /v1/responses` and `GET /v1/responses/{id}`: a response is a run of the served harness, and
 * its conversation is a thread of the harness owned by the calling key (docs/control-plane.md,
 * Threads), so a response id, `resp_<run_id>`, names a turn of a thread. A request without
 * `previous_response_id` starts a new thread; with one, it continues that response's thread, given
 * the thread's earlier turns as a thread's run is — from the newest response of it only (an older one
 * would silently drop the turns after it), and only the key's own (another key's response is not
 * found, as its thread is not). A response whose run waits in the queue is `queued`, and can be read
 * back already (its id is the client's from the first event). Streamed, the events are OpenAI's:
 * `response.created` at once (then `response.queued` while the run waits for a slot),
 * `response.in_progress` once it runs, the output message and its text as one delta once the run
 * has ended (the run's output, whole), then `response.completed` (or `.incomplete`, `.failed`).
 *
 * @module
 */

import { badInput, notFound } from "../errors.ts";
import { getRun, type RunRow } from "../hive/runs.ts";
import {
  getThread,
  newestTurnRun,
  type ThreadRecord,
  threadTurns,
  type ThreadViewer,
} from "../hive/threads.ts";
import type { SseFrame } from "../http/sse.ts";
import { getTrace } from "../journal/trace.ts";
import type { Principal } from "../keys/authenticate.ts";
import { runTokens } from "../run_tally.ts";
import { recordedResult } from "../runs/recorded_result.ts";
import type { Submission } from "../runs/service.ts";
import { startThread, submitToThread, threadViewer } from "../runs/threads.ts";
import { responseConversation } from "./messages.ts";
import {
  type FinishedRun,
  responseEndEvents,
  type ResponseFacts,
  responseId,
  responseObject,
  responseRunId,
} from "./objects.ts";
import {
  finished,
  nowSeconds,
  type OpenAiAnswer,
  type OpenAiPlane,
  requireModel,
  streamError,
  type WaitingResponse,
} from "./plane.ts";
import type { ResponseRequest } from "./requests.ts";

/** A response's run (its hive row; none while it waits in the queue) and thread, as its viewer may see them. */
type Located =
  | { run: RunRow; thread: ThreadRecord; waiting?: undefined }
  | { run?: undefined; thread: ThreadRecord; waiting: WaitingResponse };

/**
 * Finds the run and thread of a response id: a run of this harness that is a turn of a thread the
 * viewer may see, or a response of this control plane whose run waits for a slot. Anything else is
 * the same plain 404, whose existence is not disclosed.
 */
function locate(
  plane: Pick<OpenAiPlane, "db" | "harness" | "waiting">,
  id: string,
  viewer: ThreadViewer,
  field?: string,
): Located {
  const { db, harness } = plane;
  const unknown = () =>
    notFound(`Unknown response ${JSON.stringify(id)}`, field ? { field } : { response_id: id });
  const runId = responseRunId(id);
  const run = runId === undefined ? undefined : getRun(db, harness, runId);
  if (!run) {
    const waiting = runId === undefined ? undefined : plane.waiting.get(runId);
    if (!waiting) throw unknown();
    try {
      return { thread: getThread(db, harness, waiting.facts.thread_id, viewer), waiting };
    } catch {
      throw unknown();
    }
  }
  if (!run.thread_id) throw unknown();
  try {
    return { run, thread: getThread(db, harness, run.thread_id, viewer) };
  } catch {
    throw unknown();
  }
}

/**
 * The thread a new response goes on: the previous response's, when that is its newest turn (a
 * response still waiting for a slot is: its thread is then busy, which `submitToThread` answers).
 */
function continued(
  plane: Pick<OpenAiPlane, "db" | "harness" | "waiting">,
  previous: string,
  viewer: ThreadViewer,
) {
  const field = "previous_response_id";
  const { run, thread } = locate(plane, previous, viewer, field);
  if (!run) return thread;
  const newest = newestTurnRun(plane.db, thread.thread_id);
  if (newest !== null && newest !== run.run_id) {
    throw badInput(
      `${JSON.stringify(previous)} is not the newest response of its conversation: continue from ${
        JSON.stringify(responseId(newest))
      }`,
      { field },
    );
  }
  return thread;
}

/**
 * Answers a response request with a run of the harness, in a new thread of the caller's key or in
 * the thread of `previous_response_id`.
 *
 * @example
 * ```ts
 * import type { Principal } from "../keys/authenticate.ts";
 * import { readRequest } from "../requests.ts";
 * import type { OpenAiPlane } from "./plane.ts";
 * import { RESPONSE_REQUEST } from "./requests.ts";
 *
 * declare const plane: OpenAiPlane;
 * declare const who: Principal;
 * const first = await createResponse(
 *   plane,
 *   readRequest(RESPONSE_REQUEST, { model: plane.harness.id, input: "My order is 42." }),
 *   who,
 * );
 * if (!first.stream) {
 *   const id = (first.body as { id: string }).id; // "resp_run_…"
 *   await createResponse(plane, readRequest(RESPONSE_REQUEST, {
 *     model: plane.harness.id,
 *     input: "Where is it?",
 *     previous_response_id: id,
 *   }), who);
 * }
 * ```
 * @param plane The served harness, its run service and the hive.
 * @param request The request, read by its schema.
 * @param who The caller: the new thread's owner, the run's `startedBy`.
 * @returns The response, or its events.
 * @throws `not_found` for another model or an unknown previous response; `bad_input` for an input
 *   a run cannot take or a previous response that is not the newest of its thread; `conflict` while
 *   the thread has a run going; the run service's errors (`over_capacity` when the queue is full).
 */
export async function createResponse(
  plane: OpenAiPlane,
  request: ResponseRequest,
  who: Principal,
): Promise<OpenAiAnswer> {
  const { db, harness } = plane;
  requireModel(request.model, harness);
  const conversation = responseConversation(request.input, request.instructions);
  const viewer = threadViewer(who);
  const previous = request.previous_response_id ?? null;
  const options = {
    startedBy: who.key_id,
    history: conversation.history,
    ...(conversation.instructions ? { callerInstructions: conversation.instructions } : {}),
  };
  const input = { input: conversation.input };
  const created_at = nowSeconds();
  let thread: ThreadRecord;
  let submission: Submission;
  if (previous === null) {
    ({ thread, submission } = await startThread(
      db,
      plane.runs,
      plane.target,
      harness,
      {
        owner: who.key_id,
        metadata: request.metadata ?? {},
      },
      input,
      options,
    ));
  } else {
    thread = continued(plane, previous, viewer);
    const sent = await submitToThread(
      db,
      plane.runs,
      plane.target,
      harness,
      thread.thread_id,
      input,
      {
        viewer,
        ...options,
      },
    );
    if (sent.kind !== "run") throw new Error("unreachable: a refused busy thread never steers");
    submission = sent.submission;
  }
  const facts = (run: FinishedRun | null): ResponseFacts => ({
    run_id: submission.run_id,
    thread_id: thread.thread_id,
    model: harness.id,
    created_at,
    instructions: conversation.instructions ?? null,
    previous_response_id: previous,
    metadata: thread.metadata,
    run,
  });
  if (submission.queued) {
    // Until its run starts (and is in the hive), GET /v1/responses/{id} finds it here.
    const { run_id } = submission;
    plane.waiting.set(run_id, { owner: who.key_id, facts: { ...facts(null), queued: true } });
    submission.started.finally(() => plane.waiting.delete(run_id)).catch(() => {});
  }
  if (!request.stream) {
    return { stream: false, body: responseObject(facts(await finished(submission))) };
  }
  return { stream: true, frames: responseEvents(submission, facts) };
}

/** The events of a streamed response (see the module's documentation), numbered in order. */
async function* responseEvents(
  submission: Submission,
  facts: (run: FinishedRun | null) => ResponseFacts,
): AsyncGenerator<SseFrame> {
  let sequence = 0;
  const frame = (e: { type: string; [k: string]: unknown }): SseFrame => ({
    event: e.type,
    data: { ...e, sequence_number: sequence++ },
  });
  const queued = responseObject({ ...facts(null), queued: true });
  const going = responseObject(facts(null));
  yield frame({ type: "response.created", response: submission.queued ? queued : going });
  let run: FinishedRun;
  try {
    if (submission.queued) {
      yield frame({ type: "response.queued", response: queued });
      await submission.started;
    }
    yield frame({ type: "response.in_progress", response: going });
    run = await finished(submission);
  } catch (err) {
    yield streamError(err, sequence);
    return;
  }
  for (const e of responseEndEvents(responseObject(facts(run)))) yield frame(e);
}

/**
 * `GET /v1/responses/{id}`: a response as it stands — in progress while its run goes on, else
 * finished — read from the hive and the run's journal (its output, tokens and the caller's
 * instructions).
 *
 * @param plane The served harness and the hive.
 * @param id The response id.
 * @param who The caller (a key sees its own conversations; a `*` token every one).
 * @returns The response object.
 * @throws `not_found` for an unknown response, or another key's.
 */
export async function retrieveResponse(
  plane: Pick<OpenAiPlane, "db" | "harness" | "waiting">,
  id: string,
  who: Principal,
): Promise<ReturnType<typeof responseObject>> {
  const { db, harness } = plane;
  const { run, thread, waiting } = locate(plane, id, threadViewer(who));
  if (waiting) return responseObject(waiting.facts);
  const { events } = await getTrace(db, harness, run.run_id);
  const turns = threadTurns(db, thread.thread_id);
  const at = turns.findIndex((t) => t.run_id === run.run_id);
  const before = at > 0 ? turns[at - 1] : undefined;
  const instructions = events.find((e) => e.type === "run_started")?.payload.caller_instructions;
  return responseObject({
    run_id: run.run_id,
    thread_id: thread.thread_id,
    model: harness.id,
    created_at: Math.floor(Date.parse(run.started_at) / 1000),
    instructions: typeof instructions === "string" ? instructions : null,
    previous_response_id: before ? responseId(before.run_id) : null,
    metadata: thread.metadata,
    run: run.status === "running" ? null : {
      result: recordedResult(events, run, turns[at]?.output ?? null),
      tokens: runTokens(events),
    },
  });
}
