/**
 * Message content in the shapes of the OpenTelemetry GenAI semantic conventions
 * (`gen_ai.input.messages`, `gen_ai.output.messages`, `gen_ai.system_instructions`, as JSON text:
 * span attributes hold no nested objects). The text comes from the journal, where `logging.redact`
 * was applied before each line was written, so no content leaves the process unredacted. Each
 * attribute stays within a length limit (`OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT`, default
 * {@link DEFAULT_CONTENT_LIMIT} characters) and stays valid JSON: a list of messages keeps its newest
 * messages that fit, and a text longer than the limit is clipped and marked, so a long run's trace
 * grows with its length, never with its square.
 *
 * @module
 */

import type { Message, ToolCall } from "../models/types.ts";

/** One part of a message, as the conventions write it. */
export type MessagePart =
  | { type: "text"; content: string }
  | { type: "tool_call"; id: string; name: string; arguments: Record<string, unknown> }
  | { type: "tool_call_response"; id: string; response: string };

/** One message, as the conventions write it. */
export interface ConventionMessage {
  role: string;
  parts: MessagePart[];
  finish_reason?: string;
}

/**
 * An assistant's answer as the conventions write it: its text, then its tool calls.
 *
 * @param text The answer's text.
 * @param calls The tool calls it asked for.
 * @param finishReason Why it stopped, when known.
 * @returns The message.
 */
export function assistantMessage(
  text: string,
  calls: readonly ToolCall[],
  finishReason?: string,
): ConventionMessage {
  return {
    role: "assistant",
    parts: [
      ...(text ? [{ type: "text" as const, content: text }] : []),
      ...calls.map((c) => ({
        type: "tool_call" as const,
        id: c.id,
        name: c.name,
        arguments: c.arguments,
      })),
    ],
    ...(finishReason ? { finish_reason: finishReason } : {}),
  };
}

/**
 * A message of the conversation (as journalled in a model call's `append`) as the conventions write
 * it.
 *
 * @example
 * ```ts
 * conventionMessage({ role: "user", content: "Hi" }); // { role: "user", parts: [{ type: "text", content: "Hi" }] }
 * ```
 * @param m The message.
 * @returns The message in the conventions' shape.
 */
export function conventionMessage(m: Message): ConventionMessage {
  if (m.role === "assistant") return assistantMessage(m.content, m.tool_calls ?? []);
  if (m.role === "tool") {
    return {
      role: "tool",
      parts: [{ type: "tool_call_response", id: m.tool_call_id, response: m.content }],
    };
  }
  return { role: m.role, parts: [{ type: "text", content: m.content }] };
}

/**
 * The system instructions as the conventions write them (`gen_ai.system_instructions`), within the
 * attribute length limit.
 *
 * @param system The system prompt.
 * @param limit The attribute length limit.
 * @returns Its JSON text, or undefined for an empty prompt.
 */
export function systemInstructions(system: string, limit: number): string | undefined {
  return system
    ? fitted((keep) => [{ type: "text", content: clipText(system, keep) }], limit)
    : undefined;
}

/** The longest a content attribute is, in characters, unless `OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT` says. */
export const DEFAULT_CONTENT_LIMIT = 32_768;

/**
 * A text of at most `limit` characters: whole when it fits, else cut (never inside a surrogate
 * pair) and marked with how much was left out, the mark included in the limit.
 *
 * @example
 * ```ts
 * clipText("a".repeat(100), 30); // "aaaaaaa… [93 more characters]"
 * ```
 * @param text The text.
 * @param limit The most characters.
 * @returns The text, whole when it fits.
 */
export function clipText(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const mark = (left: number) => `… [${left} more characters]`;
  let at = Math.max(0, limit - mark(text.length).length);
  if (at > 0 && /[\uD800-\uDBFF]/.test(text[at - 1]!)) at--;
  return `${text.slice(0, at)}${mark(text.length - at)}`;
}

/**
 * The JSON text a builder makes with its strings clipped to `keep`, halving `keep` until the text
 * fits `limit` (escapes and the marker make the JSON longer than its strings).
 */
function fitted(build: (keep: number) => unknown, limit: number): string {
  let keep = limit;
  let json = JSON.stringify(build(keep));
  while (json.length > limit && keep > 1) {
    keep = Math.floor(keep / 2);
    json = JSON.stringify(build(keep));
  }
  return json;
}

/** A message with each of its texts (and its tool calls' arguments) clipped to `keep`. */
function clipMessage(m: ConventionMessage, keep: number): ConventionMessage {
  return {
    ...m,
    parts: m.parts.map((p): MessagePart => {
      if (p.type === "text") return { ...p, content: clipText(p.content, keep) };
      if (p.type === "tool_call_response") return { ...p, response: clipText(p.response, keep) };
      const args = JSON.stringify(p.arguments);
      return args.length <= keep ? p : { ...p, arguments: { truncated: clipText(args, keep) } };
    }),
  };
}

/**
 * One message as JSON text of at most `limit` characters, for {@link messagesJson}: whole when it
 * fits, else with its texts clipped.
 *
 * @param m The message.
 * @param limit The attribute length limit.
 * @returns Its JSON text.
 */
export function messageJson(m: ConventionMessage, limit: number): string {
  const whole = JSON.stringify(m);
  // Room for the list's brackets.
  return whole.length <= limit - 2 ? whole : fitted((keep) => clipMessage(m, keep), limit - 2);
}

/**
 * A list of messages as JSON text of at most `limit` characters: the newest messages that fit, whole
 * or (the newest alone) clipped, oldest first.
 *
 * @example
 * ```ts
 * const texts = ["a", "b"].map((t) => messageJson({ role: "user", parts: [{ type: "text", content: t }] }, 100));
 * messagesJson(texts, 100); // '[{"role":"user",…"a"…},{…"b"…}]'
 * ```
 * @param messages Each message's JSON text ({@link messageJson}), oldest first.
 * @param limit The attribute length limit.
 * @returns The list's JSON text.
 */
export function messagesJson(messages: readonly string[], limit: number): string {
  const kept: string[] = [];
  let length = 2;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    const added = m.length + (kept.length ? 1 : 0);
    if (length + added > limit) break;
    kept.push(m);
    length += added;
  }
  return `[${kept.reverse().join(",")}]`;
}
