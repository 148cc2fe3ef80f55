/**
 * The provider interface every model implements (scripted, openai, anthropic, openai-compatible) and
 * the message shapes the runner keeps in its context.
 *
 * @module
 */

import { type FrozenSlot, frozenSlot, startsWithItems } from "../frozen_slot.ts";

/** A tool call the model asked for. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

/** One message of the conversation sent to a model. */
export type Message =
  | { role: "user"; content: string }
  | { role: "assistant"; content: string; tool_calls?: ToolCall[] }
  | { role: "tool"; tool_call_id: string; name: string; content: string; is_error?: boolean };

/** A tool offered to the model. */
export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments (an object schema). */
  parameters: Record<string, unknown>;
}

/** Token usage of one model call. */
export interface Usage {
  input_tokens: number;
  output_tokens: number;
}

/** What a model call sends. */
export interface ModelRequest {
  system: string;
  messages: Message[];
  tools: ToolSpec[];
  signal: AbortSignal;
  /**
   * Receives the reply's text as it is generated (a live view; the journal keeps the whole reply).
   * Providers that can stream do so when it is given.
   */
  onText?: (delta: string) => void;
}

/** What a model call returns. */
export interface ModelResponse {
  text: string;
  tool_calls: ToolCall[];
  usage: Usage;
  /** Whether `usage` came from the provider (false: estimated from characters). */
  usage_reported: boolean;
  finish_reason?: string;
  /** Provider warnings (unsupported settings and the like), journalled by the runner. */
  warnings?: string[];
}

/** A model behind one provider. */
export interface ModelProvider {
  provider: string;
  model: string;
  generate(request: ModelRequest): Promise<ModelResponse>;
}

/**
 * A failed model call: `status` is the HTTP status when there was one; `retryable` marks 429 and 5xx.
 */
export class ProviderError extends Error {
  /** HTTP status, when the provider answered. */
  readonly status: number | undefined;
  /** Whether a retry may succeed. */
  readonly retryable: boolean;
  /** A short normalised reason for failure signatures: `http_429`, `timeout`, `malformed`, ... */
  readonly code: string;
  /** The provider's `Retry-After` hint, in seconds. */
  retryAfterS?: number;

  /**
   * @param message What went wrong.
   * @param options Status, retryability and code.
   */
  constructor(
    message: string,
    options: { status?: number; retryable?: boolean; code?: string } = {},
  ) {
    super(message);
    this.name = "ProviderError";
    this.status = options.status;
    this.retryable = options.retryable ?? (options.status === 429 || (options.status ?? 0) >= 500);
    this.code = options.code ?? (options.status ? `http_${options.status}` : "failed");
  }
}

/**
 * Estimates tokens from characters (about four per token), for providers that report no usage.
 *
 * @param text The text.
 * @returns An estimate.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/**
 * Estimates the tokens of a request's system prompt and messages, as {@link estimateTokens} of the
 * system text followed by the messages' JSON, without making that text: a frozen message of plain
 * values (a thread's earlier turn, sent again with each model call of each of its turns) has its
 * JSON length found once, kept in its slot when it has one (lib/frozen_slot.ts), and messages
 * measured together ({@link measureTogether}: a thread's history) at the start of a request are
 * counted by their sum.
 *
 * @example
 * ```ts
 * const messages = [{ role: "user" as const, content: "Hi" }];
 * estimateRequestTokens("Be brief.", messages) === estimateTokens("Be brief." + JSON.stringify(messages)); // true
 * ```
 * @param system The system prompt.
 * @param messages The messages.
 * @returns An estimate.
 */
export function estimateRequestTokens(system: string, messages: readonly Message[]): number {
  // `[`, `]` and a comma between items, as `JSON.stringify` writes an array.
  let length = system.length + 2 + Math.max(0, messages.length - 1);
  let i = 0;
  const together = messages.length ? measuredTogether(messages[0]!) : undefined;
  if (together && startsWithItems(messages, together.items)) {
    length += together.length;
    i = together.items.length;
  }
  for (; i < messages.length; i++) length += jsonLength(messages[i]!);
  return Math.ceil(length / 4);
}

/** Messages measured together, and their JSON lengths summed. */
interface Measured {
  items: readonly Message[];
  length: number;
}

/** What the token estimate keeps in the slot of the first of messages measured together. */
interface MeasuredSlot extends FrozenSlot {
  together?: Measured;
}

function measuredTogether(first: Message): Measured | undefined {
  return (frozenSlot(first) as MeasuredSlot | undefined)?.together;
}

/**
 * Sums the JSON lengths of messages sent together at the start of requests (a thread's history,
 * given to every model call of each of its runs), for {@link estimateRequestTokens}: found by the
 * first of them (its slot). When they are the messages of `after` less its first `dropped`, with
 * some added (the thread's next turn), the sum is made from that one's: the kept messages are not
 * measured again. Messages that can change, or have no slot, are left alone (measured each time).
 *
 * @example
 * ```ts
 * import { freezeWithSlot } from "../frozen_slot.ts";
 *
 * const turn = (q: string, a: string): Message[] => [
 *   freezeWithSlot({ role: "user", content: q }),
 *   freezeWithSlot({ role: "assistant", content: a }),
 * ];
 * const first = [...turn("q1", "a1"), ...turn("q2", "a2")];
 * measureTogether(first);
 * const next = [...first.slice(2), ...turn("q3", "a3")];
 * measureTogether(next, { items: first, dropped: 2 }); // first's sum, less q1 and a1, plus q3 and a3
 * ```
 * @param items The messages, in order.
 * @param after The messages measured together before, and how many of their first ones these drop.
 */
export function measureTogether(
  items: readonly Message[],
  after?: { items: readonly Message[]; dropped: number },
): void {
  const slot = items.length ? frozenSlot(items[0]) as MeasuredSlot | undefined : undefined;
  if (!slot) return;
  const before = after?.items.length ? measuredTogether(after.items[0]!) : undefined;
  let length = 0;
  let next = 0;
  if (
    before && before.items === after!.items && startsWithItems(items, after!.items, after!.dropped)
  ) {
    length = before.length;
    for (let i = 0; i < after!.dropped; i++) length -= jsonLength(after!.items[i]!);
    next = after!.items.length - after!.dropped;
  }
  for (; next < items.length; next++) {
    const m = items[next]!;
    if (!remembered(m)) return;
    length += jsonLength(m);
  }
  slot.together = { items, length };
}

/** Whether a message cannot change (frozen, with plain values alone): its length is kept. */
function remembered(m: Message): boolean {
  return Object.isFrozen(m) && Object.values(m).every((v) => v === null || typeof v !== "object");
}

/** The JSON lengths of frozen messages whose values are all plain and that have no slot. */
const frozenLengths = new WeakMap<object, number>();

function jsonLength(m: Message): number {
  // Found in the message itself (a thread's history: lib/frozen_slot.ts), else in the table.
  const slot = frozenSlot(m);
  const known = slot ? slot.jsonLength : frozenLengths.get(m);
  if (known !== undefined) return known;
  const length = (JSON.stringify(m) ?? "null").length;
  if (remembered(m)) {
    if (slot) slot.jsonLength = length;
    else frozenLengths.set(m, length);
  }
  return length;
}
