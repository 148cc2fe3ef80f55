/**
 * `POST /v1/chat/completions`: a conversation becomes one run of the served harness through the run
 * service, as `POST /run` starts one (capacity and its queue, trust, journal, hive): the last user
 * message is its input, the messages before it its history, the system messages its caller
 * instructions. The answer is the completion, or, with `stream: true`, its chunks: the role at once,
 * then the run's output whole as one delta once the run has ended (runs do not stream their answer
 * token by token, and no partial text is made up), the finish with the `framework` extension, the
 * usage when asked (`stream_options.include_usage`), and `[DONE]`.
 *
 * @module
 */

import type { Principal } from "../keys/authenticate.ts";
import type { SseFrame } from "../http/sse.ts";
import type { Submission } from "../runs/service.ts";
import { FINISH_REASONS } from "./finish.ts";
import { chatConversation } from "./messages.ts";
import { chatChunk, chatCompletion, chatCompletionId, type FinishedRun } from "./objects.ts";
import {
  DONE,
  finished,
  nowSeconds,
  type OpenAiAnswer,
  type OpenAiPlane,
  requireModel,
  streamError,
} from "./plane.ts";
import type { ChatCompletionRequest } from "./requests.ts";

/**
 * Answers a chat completion request with a run of the harness.
 *
 * @example
 * ```ts
 * import type { Principal } from "../keys/authenticate.ts";
 * import { readRequest } from "../requests.ts";
 * import type { OpenAiPlane } from "./plane.ts";
 * import { CHAT_COMPLETION_REQUEST } from "./requests.ts";
 *
 * declare const plane: OpenAiPlane;
 * declare const who: Principal;
 * const request = readRequest(CHAT_COMPLETION_REQUEST, {
 *   model: plane.harness.id,
 *   messages: [{ role: "user", content: "Where is my order?" }],
 * });
 * const answer = await chatCompletions(plane, request, who);
 * if (!answer.stream) console.log(answer.body); // {id: "chatcmpl-run_…", choices: […], …}
 * ```
 * @param plane The served harness and its run service.
 * @param request The request, read by its schema.
 * @param who The caller (the run's `startedBy`).
 * @returns The completion, or its chunks.
 * @throws `not_found` for another model; `bad_input` for a message a run cannot take; the run
 *   service's errors (`over_capacity` when the queue is full).
 */
export async function chatCompletions(
  plane: OpenAiPlane,
  request: ChatCompletionRequest,
  who: Principal,
): Promise<OpenAiAnswer> {
  requireModel(request.model, plane.harness);
  const conversation = chatConversation(request.messages);
  const created = nowSeconds();
  const submission = await plane.runs.submit(plane.target, { input: conversation.input }, {
    startedBy: who.key_id,
    history: conversation.history,
    ...(conversation.instructions ? { callerInstructions: conversation.instructions } : {}),
  });
  if (!request.stream) {
    return { stream: false, body: chatCompletion(await finished(submission), created) };
  }
  const withUsage = request.stream_options?.include_usage === true;
  return { stream: true, frames: chatChunks(submission, created, withUsage) };
}

/** The chunks of a streamed completion (see the module's documentation). */
async function* chatChunks(
  submission: Submission,
  created: number,
  withUsage: boolean,
): AsyncGenerator<SseFrame> {
  const ids = { id: chatCompletionId(submission.run_id), created, model: submission.harness_id };
  yield { data: chatChunk(ids, { delta: { role: "assistant", content: "" } }, withUsage) };
  let run: FinishedRun;
  try {
    run = await finished(submission);
  } catch (err) {
    yield streamError(err);
    return;
  }
  const { output, status } = run.result;
  if (output) yield { data: chatChunk(ids, { delta: { content: output } }, withUsage) };
  yield { data: chatChunk(ids, { finish_reason: FINISH_REASONS[status], run }, withUsage) };
  if (withUsage) yield { data: chatChunk(ids, { usage: run.tokens }, withUsage) };
  yield DONE;
}
