/**
 * `foldContext`: rebuilds the exact context (system prompt, tools, messages) that was sent at a model
 * call, from the journal alone. Each `model_call` event carries the messages appended since the
 * previous call, so folding is a concatenation.
 *
 * @module
 */

import { badInput } from "../errors.ts";
import type { Message } from "../models/types.ts";
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
