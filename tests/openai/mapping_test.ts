/**
 * The OpenAI mapping of lib/openai/, without a server: messages into a run's input, history and
 * caller instructions (system and developer messages, empty history, content as a list of parts,
 * roles and parts a run cannot take); the request schemas (what is accepted without effect, what is
 * refused naming it); finish reasons and response statuses per run status; the error mapping from
 * every error kind; and the completion objects made from a run's result and tokens.
 *
 * @module
 */

import assert from "node:assert/strict";
import {
  badInput,
  type ErrorKind,
  FrameworkError,
  overCapacity,
  payloadTooLarge,
} from "../../lib/errors.ts";
import { errorResponse } from "../../lib/http/response.ts";
import { openAiError } from "../../lib/openai/errors.ts";
import { FINISH_REASONS, responseEnd } from "../../lib/openai/finish.ts";
import { chatConversation, responseConversation } from "../../lib/openai/messages.ts";
import {
  chatChunk,
  chatCompletion,
  type FinishedRun,
  responseEndEvents,
  responseObject,
  responseRunId,
} from "../../lib/openai/objects.ts";
import { CHAT_COMPLETION_REQUEST, RESPONSE_REQUEST } from "../../lib/openai/requests.ts";
import { readRequest } from "../../lib/requests.ts";
import { runTokens } from "../../lib/run_tally.ts";
import { RUN_STATUSES, type RunResult, type RunStatus } from "../../lib/run_types.ts";
import { withCallerInstructions } from "../../lib/runner/prompt.ts";

/** Asserts a `bad_input` naming `field` (and matching `message`, when given). */
function refuses(fn: () => unknown, field: string, message?: RegExp) {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof FrameworkError, String(e));
    assert.equal(e.kind, "bad_input");
    assert.equal(e.details.field, field, e.message);
    if (message) assert.match(e.message, message);
    return true;
  });
}

Deno.test("chat messages: the last user message is the input, the ones before its history", async (t) => {
  await t.step("one user message: empty history, no instructions", () => {
    assert.deepEqual(chatConversation([{ role: "user", content: "Hi" }]), {
      input: "Hi",
      history: [],
      instructions: undefined,
    });
  });
  await t.step("system and developer messages, wherever they are, are the instructions", () => {
    const c = chatConversation([
      { role: "system", content: "Answer in French." },
      { role: "user", content: "Hi" },
      { role: "assistant", content: "Bonjour !" },
      { role: "developer", content: "  Be brief.  " },
      { role: "system", content: "" },
      { role: "user", content: "Where is my order?" },
    ]);
    assert.deepEqual(c, {
      input: "Where is my order?",
      history: [
        { role: "user", content: "Hi" },
        { role: "assistant", content: "Bonjour !" },
      ],
      instructions: "Answer in French.\n\nBe brief.",
    });
  });
  await t.step(
    "content as a list of text parts, joined by a newline; null content is empty",
    () => {
      const c = chatConversation([
        { role: "user", content: [{ type: "text", text: "a" }, { type: "text", text: "b" }] },
        { role: "assistant", content: null, refusal: null, tool_calls: [] },
        { role: "assistant", content: [{ type: "refusal", refusal: "I can't." }] },
        { role: "user", content: [] },
      ]);
      assert.deepEqual(c.history, [
        { role: "user", content: "a\nb" },
        { role: "assistant", content: "" },
        { role: "assistant", content: "I can't." },
      ]);
      assert.equal(c.input, "");
    },
  );
  await t.step("unknown roles, tool messages and tool calls are refused naming them", () => {
    refuses(
      () => chatConversation([{ role: "user", content: "a" }, { role: "robot", content: "b" }]),
      "messages.1.role",
      /"robot" is not a role/,
    );
    refuses(
      () => chatConversation([{ role: "tool", content: "42", tool_call_id: "c1" }]),
      "messages.0.role",
      /tool results are not supported/,
    );
    refuses(() => chatConversation([{ content: "no role" }]), "messages.0.role");
    refuses(
      () =>
        chatConversation([
          { role: "user", content: "a" },
          { role: "assistant", content: null, tool_calls: [{ id: "c1" }] },
          { role: "user", content: "b" },
        ]),
      "messages.1.tool_calls",
    );
  });
  await t.step("parts other than text are refused naming their type", () => {
    refuses(
      () =>
        chatConversation([{
          role: "user",
          content: [{ type: "text", text: "see" }, { type: "image_url", image_url: { url: "x" } }],
        }]),
      "messages.0.content.1.type",
      /"image_url" parts are not supported/,
    );
    refuses(
      () => chatConversation([{ role: "user", content: [{ type: "text", text: 3 }] }]),
      "messages.0.content.0.text",
    );
    refuses(
      () => chatConversation([{ role: "user", content: { text: "x" } }]),
      "messages.0.content",
    );
  });
  await t.step("the conversation must end with the user's message", () => {
    refuses(
      () => chatConversation([{ role: "user", content: "a" }, { role: "assistant", content: "b" }]),
      "messages.1.role",
      /the last message must be the user's/,
    );
    refuses(() => chatConversation([{ role: "system", content: "only" }]), "messages");
  });
});

Deno.test("response input: text or messages, instructions first", () => {
  assert.deepEqual(responseConversation("Hi", "Be brief."), {
    input: "Hi",
    history: [],
    instructions: "Be brief.",
  });
  assert.deepEqual(
    responseConversation([
      { role: "developer", content: "In French." },
      { type: "message", role: "user", content: [{ type: "input_text", text: "Hi" }] },
      {
        type: "message",
        id: "msg_1",
        status: "completed",
        role: "assistant",
        content: [{ type: "output_text", text: "Bonjour", annotations: [] }],
      },
      { role: "user", content: "And?" },
    ], "Be brief."),
    {
      input: "And?",
      history: [{ role: "user", content: "Hi" }, { role: "assistant", content: "Bonjour" }],
      instructions: "Be brief.\n\nIn French.",
    },
  );
  refuses(
    () => responseConversation([{ type: "function_call_output", call_id: "c", output: "x" }], null),
    "input.0.type",
  );
  refuses(
    () =>
      responseConversation([{
        role: "user",
        content: [{ type: "input_image", image_url: "https://example.com/a.png" }],
      }], null),
    "input.0.content.0.type",
  );
});

Deno.test("request schemas: sampling accepted without effect, the rest refused by name", () => {
  const chat = (extra: Record<string, unknown>) =>
    readRequest(CHAT_COMPLETION_REQUEST, {
      model: "h",
      messages: [{ role: "user", content: "x" }],
      ...extra,
    });
  chat({ temperature: 0.1, top_p: 1, max_tokens: 10, seed: 1, user: "u", n: 1, tools: [] });
  chat({ logprobs: false, tool_choice: "none", modalities: ["text"] });
  chat({
    response_format: { type: "text" },
    stream: true,
    stream_options: { include_usage: true },
  });
  for (
    const [field, value] of [
      ["tools", [{ type: "function" }]],
      ["functions", [{ name: "f" }]],
      ["tool_choice", "auto"],
      ["n", 2],
      ["logprobs", true],
      ["top_logprobs", 2],
      ["audio", { voice: "alloy" }],
      ["modalities", ["text", "audio"]],
      ["response_format", { type: "json_object" }],
      ["stop", ["\n"]],
      ["base_url", "http://127.0.0.1:9"],
      ["provider", "openai"],
    ] as const
  ) {
    refuses(() => chat({ [field]: value }), field);
  }
  refuses(() => chat({ temperature: "hot" }), "temperature");
  refuses(() => readRequest(CHAT_COMPLETION_REQUEST, { model: "h", messages: [] }), "messages");
  refuses(() => readRequest(CHAT_COMPLETION_REQUEST, { messages: [] }), "model", /missing "model"/);
  const response = (extra: Record<string, unknown>) =>
    readRequest(RESPONSE_REQUEST, { model: "h", input: "x", ...extra });
  response({ store: false, metadata: { a: "b" }, text: { format: { type: "text" } } });
  refuses(() => response({ text: { format: { type: "json_schema" } } }), "text.format");
  refuses(() => response({ background: true }), "background");
  // A conversation's metadata is its thread's, within the same limit.
  refuses(() => response({ metadata: { note: "x".repeat(17 * 1024) } }), "metadata", /16 KiB/);
  refuses(() => response({ tools: [{ type: "web_search" }] }), "tools");
  refuses(() => readRequest(RESPONSE_REQUEST, { model: "h" }), "input", /missing/);
});

Deno.test("finish reasons and response statuses per run status", () => {
  assert.deepEqual(FINISH_REASONS, {
    success: "stop",
    verify_failed: "stop",
    max_turns: "length",
    guardrail_halt: "content_filter",
    error: "stop",
  });
  assert.deepEqual(
    RUN_STATUSES.map((status) => [status, responseEnd({ status }).status]),
    [
      ["success", "completed"],
      ["verify_failed", "completed"],
      ["guardrail_halt", "incomplete"],
      ["max_turns", "incomplete"],
      ["error", "failed"],
    ],
  );
  assert.deepEqual(responseEnd({ status: "max_turns" }).incomplete_details, {
    reason: "max_output_tokens",
  });
  assert.deepEqual(responseEnd({ status: "guardrail_halt" }).incomplete_details, {
    reason: "content_filter",
  });
  assert.deepEqual(
    responseEnd({ status: "error", error: { reason: "timeout", message: "took too long" } }).error,
    { code: "server_error", message: "timeout: took too long" },
  );
});

Deno.test("errors in OpenAI's shape: one status and type per kind, param from the field", async () => {
  const expected: Record<ErrorKind, [number, string]> = {
    bad_input: [400, "invalid_request_error"],
    unauthorized: [401, "authentication_error"],
    forbidden: [403, "permission_error"],
    untrusted: [403, "permission_error"],
    not_found: [404, "not_found_error"],
    conflict: [409, "invalid_request_error"],
    over_capacity: [429, "rate_limit_error"],
    internal: [500, "server_error"],
  };
  for (const [kind, [status, type]] of Object.entries(expected)) {
    const shaped = openAiError(new FrameworkError(kind as ErrorKind, "m"));
    assert.equal(shaped.status, status, kind);
    assert.equal((shaped.body as { error: { type: string } }).error.type, type, kind);
  }
  assert.deepEqual(openAiError(badInput('"tools": no', { field: "tools" })), {
    status: 400,
    body: {
      error: { message: '"tools": no', type: "invalid_request_error", param: "tools", code: null },
    },
  });
  // A full queue: 429 with Retry-After (the ok wrapper's 503 stays outside /v1/).
  const full = errorResponse(overCapacity(7, "All slots are busy"), openAiError);
  assert.equal(full.status, 429);
  assert.equal(full.headers.get("retry-after"), "7");
  assert.equal((await full.json()).error.code, "rate_limit_exceeded");
  assert.equal(errorResponse(overCapacity(7, "busy")).status, 503);
  // A more precise status stays: 413.
  assert.equal(openAiError(payloadTooLarge(10)).status, 413);
});

/** A finished run of a given status and output. */
function finishedRun(status: RunStatus, output: string): FinishedRun {
  const result: RunResult = {
    run_id: "run_1",
    harness_id: "h",
    status,
    output,
    cost_usd: 0.01,
    turns: 2,
    started_at: "2026-01-01T00:00:00.000Z",
    ended_at: "2026-01-01T00:00:01.000Z",
    duration_ms: 1000,
    spec_version: "v",
    failure_signature: null,
    ...(status === "error" ? { error: { reason: "timeout", message: "took too long" } } : {}),
  };
  return { result, tokens: { input_tokens: 12, output_tokens: 5 } };
}

Deno.test("completion objects from a run: output as it is, usage, the framework extension", () => {
  const done = chatCompletion(finishedRun("max_turns", "partial"), 100);
  assert.equal(done.id, "chatcmpl-run_1");
  assert.equal(done.choices[0]!.message.content, "partial");
  assert.equal(done.choices[0]!.finish_reason, "length");
  assert.deepEqual(done.usage, { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 });
  assert.deepEqual(done.framework, {
    run_id: "run_1",
    status: "max_turns",
    cost_usd: 0.01,
    turns: 2,
  });
  // A failed run: 200 with whatever it produced, stop, and its reason in the extension.
  const failed = chatCompletion(finishedRun("error", ""), 100);
  assert.equal(failed.choices[0]!.message.content, "");
  assert.equal(failed.choices[0]!.finish_reason, "stop");
  assert.deepEqual(failed.framework.error, { reason: "timeout", message: "took too long" });
  // Chunks: usage null on every chunk when asked for, then a closing usage chunk with no choice.
  const ids = { id: "chatcmpl-run_1", created: 100, model: "h" };
  assert.equal(chatChunk(ids, { delta: { content: "x" } }, true).usage, null);
  assert.ok(!("usage" in chatChunk(ids, { delta: { content: "x" } }, false)));
  assert.deepEqual(
    chatChunk(ids, { usage: { input_tokens: 1, output_tokens: 2 } }, true).choices,
    [],
  );

  const response = responseObject({
    run_id: "run_1",
    thread_id: "thr_1",
    model: "h",
    created_at: 100,
    instructions: null,
    previous_response_id: null,
    metadata: {},
    run: finishedRun("guardrail_halt", ""),
  });
  assert.equal(response.status, "incomplete");
  assert.deepEqual(response.output, []);
  // No output: the stream goes straight to its end.
  assert.deepEqual(responseEndEvents(response).map((e) => e.type), ["response.incomplete"]);
  const pending = responseObject({
    ...response,
    ...{ run_id: "run_1", thread_id: "thr_1" },
    run: null,
  });
  assert.equal(pending.status, "in_progress");
  assert.equal(pending.usage, null);
  assert.equal(responseRunId("resp_run_1"), "run_1");
  assert.equal(responseRunId("resp_"), undefined);
  assert.equal(responseRunId("chatcmpl-run_1"), undefined);
});

Deno.test("caller instructions come after the harness's prompt; tokens sum the run's own calls", () => {
  assert.equal(
    withCallerInstructions("Be kind.", " Be brief. "),
    "Be kind.\n\n## Instructions from the caller\nBe brief.",
  );
  assert.equal(
    withCallerInstructions("", "Be brief."),
    "## Instructions from the caller\nBe brief.",
  );
  assert.equal(withCallerInstructions("Be kind.", "  "), "Be kind.");
  assert.deepEqual(
    runTokens([
      {
        type: "replayed",
        payload: {
          original_type: "model_response",
          payload: { usage: { input_tokens: 99, output_tokens: 99 } },
        },
      },
      { type: "model_response", payload: { usage: { input_tokens: 10, output_tokens: 2 } } },
      { type: "tool_result", payload: {} },
      { type: "model_response", payload: { usage: { input_tokens: 20, output_tokens: 3 } } },
    ]),
    { input_tokens: 30, output_tokens: 5 },
  );
});
