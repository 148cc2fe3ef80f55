/**
 * Message content in the shapes of the OpenTelemetry GenAI semantic conventions
 * (`gen_ai.input.messages`, `gen_ai.output.messages`, `gen_ai.system_instructions`, as JSON text:
 * span attributes hold no nested objects). The text comes from the journal, where `logging.redact`
 * was applied before each line was written, so no content leaves the process unredacted.
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
 * The system instructions as the conventions write them (`gen_ai.system_instructions`).
 *
 * @param system The system prompt.
 * @returns Its JSON text, or undefined for an empty prompt.
 */
export function systemInstructions(system: string): string | undefined {
  return system ? JSON.stringify([{ type: "text", content: system }]) : undefined;
}
