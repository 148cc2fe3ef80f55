/**
 * `foldContext`: rebuilds the exact context (system prompt, tools, messages) that was sent at a model
 * call, from the journal alone. Each `model_call` event carries the messages appended since the
 * previous call, so folding is a concatenation.
 *
 * @module
 */

import { badInput } from "../errors.ts";
import type { Message, ToolCall } from "../models/types.ts";
import type { JournalEvent } from "./event.ts";

/** The context of one model call. */
export interface FoldedContext {
  /** The `model_call` event's seq. */
  seq: number;
  turn: number;
  model: { provider: string; name: string | null };
  system: string;
  tools: string[];
  messages: Message[];
}

/**
 * Folds the context sent at a model call.
 *
 * @example
 * ```ts
 * import { parseJournal } from "./verify.ts";
 *
 * const events = parseJournal(await Deno.readFile(".framework/traces/run_01….jsonl"));
 * const ctx = foldContext(events, 6); // the messages the model saw at the call with seq 6
 * ```
 * @param events The run's events in order.
 * @param atSeq The seq of a `model_call` (or of a later event: the last call at or before it is used).
 * @returns The folded context.
 */
export function foldContext(events: readonly JournalEvent[], atSeq: number): FoldedContext {
  let target: JournalEvent | undefined;
  for (const e of events) {
    if (e.seq > atSeq) break;
    if (e.type === "model_call") target = e;
  }
  if (!target) throw badInput(`No model call at or before seq ${atSeq}`, { seq: atSeq });
  let system = "";
  const messages: Message[] = [];
  for (const e of events) {
    if (e.seq > target.seq) break;
    if (
      typeof e.payload.system === "string" &&
      (e.type === "run_started" || e.type === "system_changed")
    ) {
      system = e.payload.system;
    }
    if (e.type === "model_call") {
      messages.push(...((e.payload.append as Message[] | undefined) ?? []));
    }
  }
  const p = target.payload as { turn: number; model: FoldedContext["model"]; tools?: string[] };
  return { seq: target.seq, turn: p.turn, model: p.model, system, tools: p.tools ?? [], messages };
}

/** The conversation as it stood at an event inside a turn (between a model's answer and its next call). */
export interface FoldedTurn {
  /** What the model was sent up to its last call. */
  messages: Message[];
  /** What its next call would add: the last answer, then the tool results journalled since. */
  pending: Message[];
  /** The turn of that last call. */
  turn: number;
  /** The tool calls of the last answer. */
  calls: ToolCall[];
  /** The ids of those calls answered before the event. */
  answered: Set<string>;
}

/**
 * Folds the conversation as it stood at an event after a model's answer: every message sent up to
 * the last model call, and what the next call would add (the answer and the tool results since).
 *
 * @example
 * ```ts
 * import { parseJournal } from "./verify.ts";
 *
 * const events = parseJournal(await Deno.readFile(".framework/traces/run_01….jsonl"));
 * const at = foldTurn(events, 9); // seq 9: an approval_requested after the answer at seq 7
 * at.calls.filter((c) => !at.answered.has(c.id)); // the calls of that turn still unanswered
 * ```
 * @param events The run's events in order.
 * @param atSeq The event's seq.
 * @returns The folded turn.
 * @throws `bad_input` when no model answered before the event.
 */
export function foldTurn(events: readonly JournalEvent[], atSeq: number): FoldedTurn {
  const sent = foldContext(events, atSeq);
  const answer = events.find((e) =>
    e.type === "model_response" && e.seq > sent.seq && e.seq < atSeq
  );
  if (!answer) throw badInput(`No model answer before seq ${atSeq}`, { seq: atSeq });
  const calls = (answer.payload.tool_calls as FoldedTurn["calls"] | undefined) ?? [];
  const text = typeof answer.payload.text === "string" ? answer.payload.text : "";
  const pending: Message[] = [{
    role: "assistant",
    content: text,
    ...(calls.length ? { tool_calls: calls } : {}),
  }];
  const answered = new Set<string>();
  for (const e of events) {
    if (e.seq <= answer.seq || e.seq >= atSeq || e.type !== "tool_result") continue;
    const p = e.payload as {
      id: string;
      name: string;
      ok: boolean;
      content?: string;
      error?: { code: string; message: string };
    };
    answered.add(p.id);
    pending.push({
      role: "tool",
      tool_call_id: p.id,
      name: p.name,
      content: p.ok ? p.content ?? "" : `Error (${p.error?.code}): ${p.error?.message}`,
      ...(p.ok ? {} : { is_error: true }),
    });
  }
  return { messages: sent.messages, pending, turn: sent.turn, calls, answered };
}
