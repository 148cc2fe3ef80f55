/**
 * The objects the OpenAI-compatible endpoints answer with, made from a run (docs/control-plane.md,
 * OpenAI-compatible endpoints): the model list, a chat completion and its stream's chunks, and a
 * response. Each carries the run's output as it is, `usage` from its model calls' tokens, and a
 * `framework` extension with the run's id, status, cost and turns.
 *
 * @module
 */

import type { RunTokens } from "../run_tally.ts";
import type { RunResult } from "../run_types.ts";
import { FINISH_REASONS, type FinishReason, type ResponseEnd, responseEnd } from "./finish.ts";

/** A finished run: its result, and the tokens of its model calls. */
export interface FinishedRun {
  result: RunResult;
  tokens: RunTokens;
}

/** The `framework` extension: which run answered, how it ended, what it cost. */
export interface FrameworkExtension {
  run_id: string;
  status: RunResult["status"] | "queued" | "running";
  cost_usd: number;
  turns: number;
  /** The thread a response's conversation is (responses only). */
  thread_id?: string;
  /** Why a run that did not succeed ended. */
  error?: { reason: string; message: string };
}

/**
 * The `framework` extension of a finished run.
 *
 * @param result The run's result.
 * @returns The extension.
 */
export function frameworkOf(result: RunResult): FrameworkExtension {
  return {
    run_id: result.run_id,
    status: result.status,
    cost_usd: result.cost_usd,
    turns: result.turns,
    ...(result.thread_id ? { thread_id: result.thread_id } : {}),
    ...(result.error ? { error: result.error } : {}),
  };
}

/**
 * `GET /v1/models`: the one model a control plane serves, its harness.
 *
 * @example
 * ```ts
 * modelList("support-bot", 1767225600);
 * // {object: "list", data: [{id: "support-bot", object: "model", created: 1767225600,
 * //   owned_by: "framework"}]}
 * ```
 * @param harnessId The harness's id.
 * @param created When the control plane started, in seconds.
 * @returns The list.
 */
export function modelList(harnessId: string, created: number) {
  return {
    object: "list" as const,
    data: [{ id: harnessId, object: "model" as const, created, owned_by: "framework" }],
  };
}

/** A chat completion's usage from a run's tokens. */
function chatUsage(tokens: RunTokens) {
  return {
    prompt_tokens: tokens.input_tokens,
    completion_tokens: tokens.output_tokens,
    total_tokens: tokens.input_tokens + tokens.output_tokens,
  };
}

/** A chat completion's id: `chatcmpl-<run_id>`. */
export function chatCompletionId(runId: string): string {
  return `chatcmpl-${runId}`;
}

/**
 * A chat completion from a finished run: its output as the assistant's message.
 *
 * @example
 * ```ts
 * declare const run: FinishedRun;
 * const completion = chatCompletion(run, 1767225600);
 * completion.choices[0]?.message.content === run.result.output; // true
 * ```
 * @param run The finished run.
 * @param created When the request came, in seconds.
 * @returns The completion.
 */
export function chatCompletion(run: FinishedRun, created: number) {
  const { result } = run;
  return {
    id: chatCompletionId(result.run_id),
    object: "chat.completion" as const,
    created,
    model: result.harness_id,
    choices: [{
      index: 0,
      message: { role: "assistant" as const, content: result.output, refusal: null },
      logprobs: null,
      finish_reason: FINISH_REASONS[result.status],
    }],
    usage: chatUsage(run.tokens),
    framework: frameworkOf(result),
  };
}

/** What one chunk of a streamed chat completion carries. */
export type ChunkBody =
  | { delta: { role?: "assistant"; content?: string }; finish_reason?: undefined }
  | { finish_reason: FinishReason; run: FinishedRun }
  | { usage: RunTokens };

/**
 * One `chat.completion.chunk`: a delta (the role, then the output's text), the finish (with the
 * `framework` extension), or the closing usage (`stream_options.include_usage`: no choices).
 *
 * @param ids The completion's id, creation time and model.
 * @param body What the chunk carries.
 * @param withUsage Whether the client asked for usage (then every other chunk says `usage: null`).
 * @returns The chunk.
 */
export function chatChunk(
  ids: { id: string; created: number; model: string },
  body: ChunkBody,
  withUsage: boolean,
) {
  const head = { ...ids, object: "chat.completion.chunk" as const };
  if ("usage" in body) return { ...head, choices: [], usage: chatUsage(body.usage) };
  const choice = "run" in body
    ? { index: 0, delta: {}, logprobs: null, finish_reason: body.finish_reason }
    : { index: 0, delta: body.delta, logprobs: null, finish_reason: null };
  return {
    ...head,
    choices: [choice],
    ...(withUsage ? { usage: null } : {}),
    ...("run" in body ? { framework: frameworkOf(body.run.result) } : {}),
  };
}

/** A response's id: `resp_<run_id>`. */
export function responseId(runId: string): string {
  return `resp_${runId}`;
}

/**
 * The run a response id names.
 *
 * @param id A response id.
 * @returns The run id, or undefined when it is not a response id.
 */
export function responseRunId(id: string): string | undefined {
  return id.startsWith("resp_") && id.length > 5 ? id.slice(5) : undefined;
}

/** What a response object is made of. */
export interface ResponseFacts {
  run_id: string;
  thread_id: string;
  model: string;
  /** When the request came (or the run started), in seconds. */
  created_at: number;
  /** The caller's instructions the run was given. */
  instructions: string | null;
  previous_response_id: string | null;
  metadata: Record<string, unknown>;
  /** The run, once finished; null while it goes on. */
  run: FinishedRun | null;
  /** Whether the run, not finished, still waits for a slot (not yet started). */
  queued?: boolean;
}

/** The one output message of a response, with the run's output (none for an empty output). */
function outputOf(runId: string, text: string, status: "in_progress" | "completed") {
  return {
    id: `msg_${runId}`,
    type: "message" as const,
    status,
    role: "assistant" as const,
    content: status === "in_progress"
      ? []
      : [{ type: "output_text" as const, text, annotations: [], logprobs: [] }],
  };
}

/**
 * A response object: queued (its run waits for a slot), in progress (no output yet), or finished
 * with the run's output as its one message, `usage` and the `framework` extension.
 *
 * @param facts The response's run, thread and request.
 * @returns The response.
 */
export function responseObject(facts: ResponseFacts) {
  const run = facts.run;
  const going = facts.queued ? "queued" as const : "in_progress" as const;
  const end: ResponseEnd | { status: typeof going; incomplete_details: null; error: null } = run
    ? responseEnd(run.result)
    : { status: going, incomplete_details: null, error: null };
  const tokens = run?.tokens;
  return {
    id: responseId(facts.run_id),
    object: "response" as const,
    created_at: facts.created_at,
    ...end,
    model: facts.model,
    instructions: facts.instructions,
    previous_response_id: facts.previous_response_id,
    output: run?.result.output ? [outputOf(facts.run_id, run.result.output, "completed")] : [],
    parallel_tool_calls: false,
    tool_choice: "none" as const,
    tools: [],
    text: { format: { type: "text" as const } },
    store: true,
    metadata: facts.metadata,
    usage: tokens
      ? {
        input_tokens: tokens.input_tokens,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: tokens.output_tokens,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: tokens.input_tokens + tokens.output_tokens,
      }
      : null,
    framework: run ? frameworkOf(run.result) : {
      run_id: facts.run_id,
      status: facts.queued ? "queued" : "running",
      cost_usd: 0,
      turns: 0,
      thread_id: facts.thread_id,
    },
  };
}

/** A response object, as {@link responseObject} makes it. */
export type ResponseObject = ReturnType<typeof responseObject>;

/**
 * The events of a streamed response once its run has ended, after `response.created` and
 * `response.in_progress`: the output message added, its text as one delta (the run's output, whole),
 * done, and the response's end (`response.completed`, `response.incomplete` or `response.failed`).
 * A run without output goes straight to its end.
 *
 * @param done The finished response.
 * @returns The events' types and data, without their sequence numbers.
 */
export function responseEndEvents(done: ResponseObject): { type: string; [k: string]: unknown }[] {
  const endType = `response.${done.status}`;
  const message = done.output[0];
  if (!message) return [{ type: endType, response: done }];
  const text = message.content[0]?.text ?? "";
  const at = { item_id: message.id, output_index: 0 };
  const part = { type: "output_text", text, annotations: [] };
  return [
    {
      type: "response.output_item.added",
      output_index: 0,
      item: { ...message, status: "in_progress", content: [] },
    },
    { type: "response.content_part.added", ...at, content_index: 0, part: { ...part, text: "" } },
    { type: "response.output_text.delta", ...at, content_index: 0, delta: text, logprobs: [] },
    { type: "response.output_text.done", ...at, content_index: 0, text, logprobs: [] },
    { type: "response.content_part.done", ...at, content_index: 0, part },
    { type: "response.output_item.done", output_index: 0, item: message },
    { type: endType, response: done },
  ];
}
