/**
 * The bodies of `POST /v1/chat/completions` and `POST /v1/responses`, one schema each, read with
 * `readRequest` (lib/requests.ts) so a bad field is a 400 naming it. What a harness decides for
 * itself — its model, provider and their settings — is never taken from the body: `model` must be
 * the harness's id, sampling settings are accepted and have no effect, and a parameter that would
 * change what the answer is (tools, several choices, log probabilities, audio, structured output) is
 * refused naming it. Unknown fields are refused, as OpenAI refuses them. The messages themselves are
 * read into a run's input, history and caller instructions by `messages.ts`.
 *
 * @module
 */

import * as z from "zod";
import { THREAD_METADATA } from "../requests.ts";

/** A parameter the endpoints cannot honour: absent, null, or a value that changes nothing. */
function refused(why: string, harmless: (value: unknown) => boolean = () => false) {
  return z.unknown().refine((v) => v === undefined || v === null || harmless(v), {
    message: `not supported: ${why}`,
  }).optional();
}

const noTools =
  "the harness answers with its own tools, which a request cannot change; leave it out";
const textOnly = "a run answers in text; leave it out";
const noLogprobs = "a run's answer has no log probabilities; leave it out";
const noFormat = "a run's answer is text (the harness's validators check its shape); leave it out";
const isEmptyList = (v: unknown) => Array.isArray(v) && v.length === 0;
const isText = (v: unknown) => (v as { type?: unknown } | null)?.type === "text";

/** Settings of the model that the harness's spec decides: accepted, without effect. */
const samplingSettings = {
  temperature: z.number().nullish(),
  top_p: z.number().nullish(),
  user: z.string().nullish(),
  store: z.boolean().nullish(),
  service_tier: z.string().nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  prompt_cache_key: z.string().nullish(),
  safety_identifier: z.string().nullish(),
};

/** One message or input item, as sent; `messages.ts` reads it field by field. */
const item = z.record(z.string(), z.unknown());

const chatBody = z.strictObject({
  model: z.string(),
  messages: z.array(item).min(1, "send at least one message"),
  stream: z.boolean().nullish(),
  stream_options: z.strictObject({
    include_usage: z.boolean().optional(),
    include_obfuscation: z.boolean().optional(),
  }).nullish(),
  ...samplingSettings,
  max_tokens: z.number().int().nullish(),
  max_completion_tokens: z.number().int().nullish(),
  presence_penalty: z.number().nullish(),
  frequency_penalty: z.number().nullish(),
  seed: z.number().int().nullish(),
  logit_bias: z.record(z.string(), z.number()).nullish(),
  metadata: z.record(z.string(), z.string()).nullish(),
  reasoning_effort: z.string().nullish(),
  verbosity: z.string().nullish(),
  tools: refused(noTools, isEmptyList),
  tool_choice: refused(noTools, (v) => v === "none"),
  functions: refused(noTools, isEmptyList),
  function_call: refused(noTools, (v) => v === "none"),
  n: refused("a run gives one answer; send n = 1 or leave it out", (v) => v === 1),
  logprobs: refused(noLogprobs, (v) => v === false),
  top_logprobs: refused(noLogprobs),
  audio: refused(textOnly),
  modalities: refused(textOnly, (v) => Array.isArray(v) && v.length === 1 && v[0] === "text"),
  response_format: refused(noFormat, isText),
  stop: refused("a run's answer is not cut at stop sequences; leave it out", isEmptyList),
  prediction: refused("a run's answer is not predicted; leave it out"),
  web_search_options: refused(noTools),
});

/** `POST /v1/chat/completions`. */
export const CHAT_COMPLETION_REQUEST = {
  schema: chatBody,
  what: "chat completion request",
  example: '{"model": "<harness id>", "messages": [{"role": "user", "content": "…"}]}',
};

/** A chat completion request, as read. */
export type ChatCompletionRequest = z.infer<typeof chatBody>;

const responseBody = z.strictObject({
  model: z.string(),
  input: z.union([z.string(), z.array(item).min(1, "send at least one input item")], {
    error: (issue) =>
      issue.input === undefined
        ? "missing: send the input as text or as a list of messages"
        : "expected text or a list of messages",
  }),
  instructions: z.string().nullish(),
  previous_response_id: z.string().nullish(),
  // A new conversation's metadata is its thread's (as POST /threads takes it).
  metadata: THREAD_METADATA.nullish(),
  stream: z.boolean().nullish(),
  stream_options: z.strictObject({ include_obfuscation: z.boolean().optional() }).nullish(),
  ...samplingSettings,
  max_output_tokens: z.number().int().nullish(),
  max_tool_calls: z.number().int().nullish(),
  truncation: z.enum(["auto", "disabled"]).nullish(),
  reasoning: z.record(z.string(), z.unknown()).nullish(),
  include: z.array(z.string()).nullish(),
  text: z.strictObject({
    format: refused(noFormat, isText),
    verbosity: z.string().nullish(),
  }).nullish(),
  tools: refused(noTools, isEmptyList),
  tool_choice: refused(noTools, (v) => v === "none"),
  top_logprobs: refused(noLogprobs),
  background: refused("a response is answered when its run ends; leave it out", (v) => v === false),
  conversation: refused("send previous_response_id to continue a conversation"),
  prompt: refused("send the input itself"),
});

/** `POST /v1/responses`. */
export const RESPONSE_REQUEST = {
  schema: responseBody,
  what: "response request",
  example: '{"model": "<harness id>", "input": "…", "previous_response_id"?: "resp_…"}',
};

/** A response request, as read. */
export type ResponseRequest = z.infer<typeof responseBody>;
