/**
 * The real providers (`openai`, `anthropic`, `openai-compatible`) through the AI SDK, behind the
 * runner's provider interface. One call is one model request: the SDK's own retries are off (the
 * runner retries 429 and 5xx itself so every retry is journalled) and tools have no `execute`, so the
 * SDK returns the tool calls for the runner to run.
 *
 * @module
 */

import { linkSignals } from "../linked_signal.ts";
import { deadline } from "../deadline.ts";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import {
  APICallError,
  generateText,
  jsonSchema,
  type LanguageModel,
  type ModelMessage,
  streamText,
  type ToolSet,
} from "ai";
import { lookupCredential } from "../fs/dotenv.ts";
import type { ModelSpec } from "../harness_spec/schema.ts";
import { modelEndpoint } from "./endpoint.ts";
import {
  estimateRequestTokens,
  estimateTokens,
  type Message,
  type ModelProvider,
  type ModelRequest,
  type ModelResponse,
  ProviderError,
  type ToolSpec,
} from "./types.ts";

// Provider warnings go into the journal (see `warnings` below), not onto the console.
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

/** Default per-call time limit of a provider request. */
const DEFAULT_CALL_TIMEOUT_S = 120;

function apiKey(model: ModelSpec, harnessDir: string): string | undefined {
  const name = modelEndpoint(model).key_env;
  if (!name) return undefined;
  const key = lookupCredential(name, harnessDir);
  if (!key && model.provider !== "openai-compatible") {
    throw new ProviderError(
      `Missing API key: set ${name} in the environment or in the harness's .env file (or name another variable in model.api_key_env)`,
      { code: "missing_key", retryable: false },
    );
  }
  return key;
}

function languageModel(model: ModelSpec, harnessDir: string): LanguageModel {
  const key = apiKey(model, harnessDir);
  const name = model.name!;
  const baseURL = modelEndpoint(model).base_url ?? undefined;
  switch (model.provider) {
    case "openai":
      return createOpenAI({ ...(key ? { apiKey: key } : {}), ...(baseURL ? { baseURL } : {}) })
        .chat(name);
    case "anthropic":
      return createAnthropic({ ...(key ? { apiKey: key } : {}), ...(baseURL ? { baseURL } : {}) })(
        name,
      );
    case "openai-compatible":
      return createOpenAICompatible({
        name: "openai-compatible",
        baseURL: baseURL!,
        ...(key ? { apiKey: key } : {}),
        includeUsage: true,
      }).chatModel(name);
    default:
      throw new ProviderError(`Unknown provider ${JSON.stringify(model.provider)}`, {
        code: "unsupported_provider",
        retryable: false,
      });
  }
}

/**
 * Converts the runner's messages to AI SDK messages; consecutive tool results become one tool message.
 *
 * @param messages The runner's messages.
 * @returns AI SDK model messages.
 */
export function toModelMessages(messages: readonly Message[]): ModelMessage[] {
  const out: ModelMessage[] = [];
  for (const m of messages) {
    if (m.role === "user") {
      out.push({ role: "user", content: m.content });
    } else if (m.role === "assistant") {
      const parts = [
        ...(m.content ? [{ type: "text" as const, text: m.content }] : []),
        ...(m.tool_calls ?? []).map((c) => ({
          type: "tool-call" as const,
          toolCallId: c.id,
          toolName: c.name,
          input: c.arguments,
        })),
      ];
      out.push({ role: "assistant", content: parts.length ? parts : [{ type: "text", text: "" }] });
    } else {
      const part = {
        type: "tool-result" as const,
        toolCallId: m.tool_call_id,
        toolName: m.name,
        output: m.is_error
          ? { type: "error-text" as const, value: m.content }
          : { type: "text" as const, value: m.content },
      };
      const last = out.at(-1);
      if (last?.role === "tool" && Array.isArray(last.content)) last.content.push(part);
      else out.push({ role: "tool", content: [part] });
    }
  }
  return out;
}

function toolSet(tools: readonly ToolSpec[]): ToolSet {
  const set: ToolSet = {};
  for (const t of tools) {
    set[t.name] = {
      description: t.description,
      inputSchema: jsonSchema(t.parameters as Parameters<typeof jsonSchema>[0]),
    };
  }
  return set;
}

/** Short, safe text of a provider error body (never the request, never headers). */
function bodyExcerpt(body: string | undefined): string {
  if (!body) return "";
  try {
    const parsed = JSON.parse(body);
    const message = parsed?.error?.message ?? parsed?.message ?? parsed?.error;
    if (typeof message === "string") return `: ${message.slice(0, 200)}`;
  } catch {
    // not JSON
  }
  return `: ${body.slice(0, 200)}`;
}

/**
 * Turns an AI SDK failure into a ProviderError (status, retryability, a `Retry-After` hint).
 *
 * @param err What the SDK threw.
 * @param label `provider:model` for the message.
 * @returns The ProviderError.
 */
export function toProviderError(err: unknown, label: string): ProviderError {
  if (err instanceof ProviderError) return err;
  if (APICallError.isInstance(err)) {
    const status = err.statusCode;
    if (status !== undefined && status >= 200 && status < 300) {
      return new ProviderError(`${label} sent a malformed reply${bodyExcerpt(err.responseBody)}`, {
        code: "malformed",
        retryable: false,
      });
    }
    const e = new ProviderError(
      `${label} answered HTTP ${status ?? "error"}${bodyExcerpt(err.responseBody)}`,
      {
        ...(status ? { status } : { code: "network" }),
        retryable: err.isRetryable || status === 429 || (status ?? 0) >= 500,
      },
    );
    const retryAfter = err.responseHeaders?.["retry-after"];
    if (retryAfter !== undefined) e.retryAfterS = Number(retryAfter);
    return e;
  }
  const name = (err as Error)?.name ?? "";
  const message = (err as Error)?.message ?? String(err);
  if (
    /JSONParse|TypeValidation|InvalidResponseData|NoContentGenerated|InvalidToolInput|NoSuchTool/
      .test(name)
  ) {
    return new ProviderError(`${label} sent a malformed reply: ${message.slice(0, 200)}`, {
      code: "malformed",
      retryable: false,
    });
  }
  if (name === "TypeError" || /fetch|ECONNREFUSED|connection/i.test(message)) {
    return new ProviderError(`${label} could not be reached: ${message.slice(0, 200)}`, {
      code: "network",
      retryable: true,
    });
  }
  return new ProviderError(`${label} failed: ${message.slice(0, 200)}`, {
    code: "failed",
    retryable: false,
  });
}

/**
 * Creates a provider for `openai`, `anthropic` or `openai-compatible`. Keys come from
 * `model.api_key_env` (or the provider's usual variable) in the environment or the harness's `.env`.
 * `model.options.stream: true` streams the reply (collected before the runner sees it); so does a
 * request with `onText`, which sees the text as it comes.
 *
 * @example
 * ```ts
 * const p = createAiSdkProvider({
 *   provider: "openai-compatible",
 *   name: "llama3.1",
 *   base_url: "http://127.0.0.1:11434/v1",
 * }, "/h");
 * ```
 * @param model The model block.
 * @param harnessDir The harness folder (for its `.env`).
 * @returns The provider.
 */
export function createAiSdkProvider(model: ModelSpec, harnessDir: string): ModelProvider {
  const label = `${model.provider}:${model.name}`;
  const options = { ...(model.options ?? {}) } as Record<string, unknown>;
  const stream = options.stream === true;
  delete options.stream;
  const settings = {
    ...(typeof options.temperature === "number" ? { temperature: options.temperature } : {}),
    ...(typeof options.max_tokens === "number" ? { maxOutputTokens: options.max_tokens } : {}),
    ...(typeof options.top_p === "number" ? { topP: options.top_p } : {}),
  };
  let lm: LanguageModel | undefined;
  return {
    provider: model.provider,
    model: model.name ?? "",
    async generate(request: ModelRequest): Promise<ModelResponse> {
      lm ??= languageModel(model, harnessDir);
      const callLimit = deadline((model.timeout_s ?? DEFAULT_CALL_TIMEOUT_S) * 1000);
      const callTimeout = callLimit.signal;
      const callSignal = linkSignals(request.signal, callTimeout);
      const abortSignal = callSignal.signal;
      const common = {
        model: lm,
        system: request.system || undefined,
        messages: toModelMessages(request.messages),
        ...(request.tools.length ? { tools: toolSet(request.tools) } : {}),
        maxRetries: 0,
        abortSignal,
        ...settings,
      };
      try {
        let text: string;
        let calls: { toolCallId: string; toolName: string; input: unknown }[];
        let usage: { inputTokens: number | undefined; outputTokens: number | undefined };
        let finish: string;
        let warnings: unknown[] | undefined;
        if (stream || request.onText) {
          let streamError: unknown;
          const onText = request.onText;
          const r = streamText({
            ...common,
            onError: ({ error }) => void (streamError ??= error),
            ...(onText
              ? {
                onChunk: ({ chunk }) => {
                  if (chunk.type === "text-delta" && chunk.text) onText(chunk.text);
                },
              }
              : {}),
          });
          [text, calls, usage, finish, warnings] = await Promise.all([
            r.text,
            r.toolCalls,
            r.usage,
            r.finishReason,
            r.warnings,
          ]);
          if (streamError) throw streamError;
        } else {
          const r = await generateText(common);
          [text, calls, usage, finish, warnings] = [
            r.text,
            r.toolCalls,
            r.usage,
            r.finishReason,
            r.warnings,
          ];
        }
        const reported = usage.inputTokens !== undefined && usage.outputTokens !== undefined;
        const tool_calls = calls.map((c) => ({
          id: c.toolCallId,
          name: c.toolName,
          arguments: (c.input && typeof c.input === "object" ? c.input : {}) as Record<
            string,
            unknown
          >,
        }));
        return {
          text,
          tool_calls,
          usage: reported
            ? { input_tokens: usage.inputTokens!, output_tokens: usage.outputTokens! }
            : {
              input_tokens: estimateRequestTokens(request.system, request.messages),
              output_tokens: estimateTokens(text + JSON.stringify(tool_calls)),
            },
          usage_reported: reported,
          finish_reason: finish,
          ...(warnings?.length
            ? { warnings: warnings.map((w) => JSON.stringify(w).slice(0, 300)) }
            : {}),
        };
      } catch (err) {
        if (request.signal.aborted) throw request.signal.reason;
        if (callTimeout.aborted) {
          throw new ProviderError(
            `${label} did not answer within ${model.timeout_s ?? DEFAULT_CALL_TIMEOUT_S} s`,
            {
              code: "timeout",
              retryable: true,
            },
          );
        }
        throw toProviderError(err, label);
      } finally {
        callLimit.clear();
        callSignal.dispose();
      }
    },
  };
}
