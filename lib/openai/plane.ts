/**
 * What both OpenAI-compatible endpoints share: the served harness and its run service, the model
 * check (the one model is the harness), a submitted run waited for with its tokens, and the answer
 * a route sends (a JSON object, or server-sent events).
 *
 * @module
 */

import { notFound } from "../errors.ts";
import type { HarnessRef } from "../hive/harnesses.ts";
import type { Hive } from "../hive/open.ts";
import { reportedError } from "../http/response.ts";
import type { SseFrame } from "../http/sse.ts";
import { runTokens } from "../run_tally.ts";
import type { HarnessTarget, RunService, Submission } from "../runs/service.ts";
import { openAiError } from "./errors.ts";
import type { FinishedRun, ResponseFacts } from "./objects.ts";

/** The control plane as the endpoints use it. */
export interface OpenAiPlane {
  db: Hive;
  runs: RunService;
  /** The harness folder's trust proof (what `/run` passes). */
  target: HarnessTarget;
  harness: HarnessRef;
  /**
   * Responses whose run waits for a slot, by run id: their run is not in the hive until it starts,
   * yet the client already holds their id (`response.created`). Emptied as each run starts.
   */
  waiting: Map<string, WaitingResponse>;
}

/** A response whose run waits in the queue: who may see it, and what it is made of. */
export interface WaitingResponse {
  /** The key owning its conversation. */
  owner: string;
  facts: ResponseFacts;
}

/** What an endpoint answers: an object (200, JSON), or events (`text/event-stream`). */
export type OpenAiAnswer =
  | { stream: false; body: unknown }
  | { stream: true; frames: AsyncGenerator<SseFrame> };

/** The frame that ends a chat completion's stream. */
export const DONE: SseFrame = { text: "[DONE]" };

/**
 * Checks a request's `model`: the one model a control plane serves is its harness, named by its id.
 * Nothing else in a request picks a model or a provider.
 *
 * @param model The request's model.
 * @param harness The served harness.
 * @throws `not_found` (404, `param: "model"`) for another id.
 */
export function requireModel(model: string, harness: HarnessRef): void {
  if (model === harness.id) return;
  throw notFound(
    `The model ${
      JSON.stringify(model)
    } does not exist here: this control plane serves the harness ${
      JSON.stringify(harness.id)
    }; send "model": ${JSON.stringify(harness.id)} (GET /v1/models lists it)`,
    { field: "model", code: "model_not_found" },
  );
}

/**
 * Waits for a submitted run to end and sums the tokens of its model calls from its events.
 *
 * @param submission The run.
 * @returns Its result and tokens.
 * @throws What a run that could not start rejects with.
 */
export async function finished(submission: Submission): Promise<FinishedRun> {
  const result = await submission.result;
  const run = await submission.started;
  return { result, tokens: runTokens(run.events.snapshot()) };
}

/**
 * A failure after a stream has begun, as OpenAI sends one: its error object as the data (a chat
 * stream), or an `error` event (a Responses stream); an OpenAI client raises it.
 *
 * @param err What was thrown.
 * @param sequence The next sequence number of a Responses stream (undefined for a chat stream).
 * @returns The frame.
 */
export function streamError(err: unknown, sequence?: number): SseFrame {
  const { body } = openAiError(reportedError(err)) as { body: { error: Record<string, unknown> } };
  if (sequence === undefined) return { data: body };
  return { event: "error", data: { type: "error", ...body.error, sequence_number: sequence } };
}

/** Now, in whole seconds (OpenAI's `created`). */
export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}
