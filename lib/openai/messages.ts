/**
 * An OpenAI conversation read into what a run is given, as a thread's turns are: the last `user`
 * message is the run's input, the `user` and `assistant` messages before it are its history (in
 * order, as `{role, content}` text), and the `system` and `developer` messages (with a Responses
 * request's `instructions` first) are the caller's instructions, which the run adds after the
 * harness's own system prompt and never puts in their place. Content is text or a list of text
 * parts (joined by a newline); anything a run cannot take — images, files, audio, tool calls and
 * tool results, another role — is refused naming the field, so nothing is dropped silently and no
 * value of the request can name a file to read.
 *
 * @module
 */

import { badInput } from "../errors.ts";
import type { Message } from "../models/types.ts";

/** What a conversation gives a run. */
export interface RunConversation {
  /** The last user message: the run's input. */
  input: string;
  /** The user and assistant messages before it, oldest first. */
  history: Message[];
  /** The caller's instructions (system and developer messages), or undefined for none. */
  instructions: string | undefined;
}

/** One message, its content read as text; `at` names it in errors (`messages.2`). */
interface ReadMessage {
  role: "system" | "user" | "assistant";
  text: string;
  at: string;
}

/** The text parts each API sends, by its part type. */
const TEXT_PARTS: Readonly<Record<string, "text" | "refusal">> = {
  text: "text", // chat completions
  input_text: "text", // responses, from the user
  output_text: "text", // responses, an earlier answer sent back
  refusal: "refusal", // both: an earlier answer that refused
};

function refuse(field: string, why: string): never {
  throw badInput(`${JSON.stringify(field)}: ${why}`, { field });
}

/** A message's content as text: a string, null (none), or a list of text parts. */
function contentText(content: unknown, at: string): string {
  if (typeof content === "string") return content;
  if (content === null || content === undefined) return "";
  if (!Array.isArray(content)) {
    refuse(`${at}.content`, "expected text or a list of text parts");
  }
  return content.map((part, j) => {
    const where = `${at}.content.${j}`;
    const type = (part as { type?: unknown } | null)?.type;
    const key = typeof type === "string" ? TEXT_PARTS[type] : undefined;
    if (!key) {
      refuse(
        `${where}.type`,
        `${JSON.stringify(type)} parts are not supported: a run takes text, so send text parts`,
      );
    }
    const text = (part as Record<string, unknown>)[key];
    if (typeof text !== "string") refuse(`${where}.${key}`, "expected text");
    return text;
  }).join("\n");
}

/** Roles a run can take, as one of its three: `developer` is OpenAI's newer name for `system`. */
const ROLES: Readonly<Record<string, ReadMessage["role"]>> = {
  system: "system",
  developer: "system",
  user: "user",
  assistant: "assistant",
};

/** A field that would make a message something a run cannot take, when it is set. */
function refuseSet(message: Record<string, unknown>, at: string, fields: readonly string[]) {
  for (const field of fields) {
    const value = message[field];
    if (value === undefined || value === null) continue;
    if (Array.isArray(value) && value.length === 0) continue;
    refuse(
      `${at}.${field}`,
      "tool calls are not supported: the harness calls its own tools; send the conversation's text",
    );
  }
}

/** Reads one message of either API (its role and content); `at` names it in errors. */
function readMessage(message: Record<string, unknown>, at: string): ReadMessage {
  const role = message.role;
  const read = typeof role === "string" ? ROLES[role] : undefined;
  if (!read) {
    const why = role === "tool" || role === "function"
      ? "tool results are not supported: the harness calls its own tools"
      : `${JSON.stringify(role)} is not a role a run takes`;
    refuse(`${at}.role`, `${why}; send system, developer, user or assistant messages`);
  }
  if (read === "assistant") refuseSet(message, at, ["tool_calls", "function_call", "audio"]);
  return { role: read, text: contentText(message.content, at), at };
}

/** The run's input, history and instructions from messages read in order. */
function conversationOf(
  messages: readonly ReadMessage[],
  list: string,
  instructions: readonly string[] = [],
): RunConversation {
  const system = [
    ...instructions,
    ...messages.filter((m) => m.role === "system").map((m) => m.text),
  ]
    .map((t) => t.trim()).filter((t) => t);
  const talk = messages.filter((m): m is ReadMessage & { role: "user" | "assistant" } =>
    m.role !== "system"
  );
  const last = talk.at(-1);
  if (!last) refuse(list, "no user message: send the question as a user message");
  if (last.role !== "user") {
    refuse(
      `${last.at}.role`,
      "the last message must be the user's: it is what the run answers (earlier ones are its history)",
    );
  }
  return {
    input: last.text,
    history: talk.slice(0, -1).map((m): Message => ({ role: m.role, content: m.text })),
    instructions: system.length ? system.join("\n\n") : undefined,
  };
}

/**
 * Reads a chat completion's `messages` into a run's input, history and caller instructions.
 *
 * @example
 * ```ts
 * chatConversation([
 *   { role: "system", content: "Answer in French." },
 *   { role: "user", content: "Hi" },
 *   { role: "assistant", content: "Bonjour !" },
 *   { role: "user", content: [{ type: "text", text: "Where is my order?" }] },
 * ]);
 * // {input: "Where is my order?", instructions: "Answer in French.",
 * //  history: [{role: "user", content: "Hi"}, {role: "assistant", content: "Bonjour !"}]}
 * ```
 * @param messages The request's messages (objects, as the request schema read them).
 * @returns What the run is given.
 * @throws `bad_input` naming the message field a run cannot take.
 */
export function chatConversation(
  messages: readonly Record<string, unknown>[],
): RunConversation {
  return conversationOf(messages.map((m, i) => readMessage(m, `messages.${i}`)), "messages");
}

/**
 * Reads a Responses request's `input` (text, or a list of messages) and `instructions` into a run's
 * input, history and caller instructions. Items other than messages (tool calls and their outputs,
 * reasoning, references) are refused naming their type.
 *
 * @example
 * ```ts
 * responseConversation("Where is my order?", "Answer in French.");
 * // {input: "Where is my order?", history: [], instructions: "Answer in French."}
 * responseConversation([{ role: "user", content: [{ type: "input_text", text: "Hi" }] }], null);
 * // {input: "Hi", history: [], instructions: undefined}
 * ```
 * @param input The request's input.
 * @param instructions The request's instructions (added before system messages of the input).
 * @returns What the run is given.
 * @throws `bad_input` naming the input field a run cannot take.
 */
export function responseConversation(
  input: string | readonly Record<string, unknown>[],
  instructions: string | null | undefined,
): RunConversation {
  const given = instructions ? [instructions] : [];
  if (typeof input === "string") {
    return conversationOf([{ role: "user", text: input, at: "input" }], "input", given);
  }
  const messages = input.map((item, i) => {
    const at = `input.${i}`;
    if (item.type !== undefined && item.type !== "message") {
      refuse(
        `${at}.type`,
        `${JSON.stringify(item.type)} items are not supported: send messages (role and content)`,
      );
    }
    return readMessage(item, at);
  });
  return conversationOf(messages, "input", given);
}
