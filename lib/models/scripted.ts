/**
 * The `scripted` provider: deterministic and offline, for tests, demos and examples. Replies are used
 * in order, one per model call; `scenarios` choose a reply list by a regular expression on the input.
 * A reply may carry text, tool calls, usage, a delay and a failure.
 *
 * @module
 */

import type { ModelSpec, ScriptedReply } from "../harness_spec/schema.ts";
import {
  estimateRequestTokens,
  estimateTokens,
  type ModelProvider,
  type ModelRequest,
  type ModelResponse,
  ProviderError,
} from "./types.ts";
import { sleep } from "../sleep.ts";

/**
 * Chooses the reply list for an input: the first scenario whose pattern matches, else `replies`.
 *
 * @param model The scripted model spec.
 * @param input The run input.
 * @returns The replies, or undefined when nothing matches.
 */
export function scriptFor(model: ModelSpec, input: string): ScriptedReply[] | undefined {
  for (const s of model.scenarios ?? []) {
    if (new RegExp(s.match, s.flags).test(input)) return s.replies;
  }
  return model.replies;
}

/**
 * Creates a scripted model for one run. Each run gets its own cursor into the replies.
 *
 * @example
 * ```ts
 * const m = createScriptedModel({ provider: "scripted", replies: [{ text: "hi" }] });
 * ```
 * @param model The `model` block with `replies` or `scenarios`.
 * @param input The run's input text, which chooses the scenario.
 * @param callsMade Calls already made (a run taken up from its journal goes on after them).
 * @returns The provider.
 */
export function createScriptedModel(model: ModelSpec, input = "", callsMade = 0): ModelProvider {
  let calls = callsMade;
  const script = scriptFor(model, input);
  return {
    provider: "scripted",
    model: model.name ?? "scripted",
    async generate(request: ModelRequest): Promise<ModelResponse> {
      if (!script) {
        throw new ProviderError(
          "No scripted scenario matches the input and there are no default replies",
          {
            code: "no_script",
            retryable: false,
          },
        );
      }
      const reply = script[calls];
      calls += 1;
      if (!reply) {
        throw new ProviderError(
          `The scripted replies are exhausted after ${script.length} model calls`,
          {
            code: "script_exhausted",
            retryable: false,
          },
        );
      }
      if (reply.delay_ms) await sleep(reply.delay_ms, request.signal);
      if (reply.error) {
        throw new ProviderError(reply.error.message, {
          ...(reply.error.status !== undefined
            ? { status: reply.error.status }
            : { code: "scripted_error" }),
        });
      }
      const text = reply.text ?? "";
      if (request.onText && text) {
        // A live view in word-sized pieces, as a streaming provider would give it.
        for (const piece of text.match(/\S+\s*|\s+/g) ?? [text]) request.onText(piece);
      }
      const tool_calls = (reply.tool_calls ?? []).map((c, i) => ({
        id: c.id ?? `call_${calls}_${i + 1}`,
        name: c.name,
        arguments: c.arguments ?? {},
      }));
      const usage = reply.usage ?? {
        input_tokens: estimateRequestTokens(request.system, request.messages),
        output_tokens: estimateTokens(text + JSON.stringify(tool_calls)),
      };
      return {
        text,
        tool_calls,
        usage,
        usage_reported: !!reply.usage,
        finish_reason: tool_calls.length ? "tool_calls" : "stop",
      };
    },
  };
}
