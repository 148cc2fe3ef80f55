/**
 * Re-entering a run from its journal (a fork's resume): the parent's events before the re-entry
 * point are checked against the hash chain and against the head the fork recorded, and become the
 * new run's `replayed` events; the model context at the re-entry point is folded from them. Nothing
 * of the prefix executes again: no model call, no tool.
 *
 * @module
 */

import { FrameworkError } from "../errors.ts";
import type { JournalEvent } from "../journal/event.ts";
import { foldContext } from "../journal/fold.ts";
import { parseJournal, verifyJournal } from "../journal/verify.ts";
import type { Message } from "../models/types.ts";

/** What a resumed run starts from. */
export interface Replay {
  /** The run it re-enters. */
  parent_run_id: string;
  /** The seq of the parent's model call it re-enters at. */
  at: number;
  /** The hash of the parent's event `at - 1`. */
  parent_head: string;
  /** The parent's events before `at`, as written. */
  events: JournalEvent[];
  /** The messages the parent's model was given at `at`. */
  messages: Message[];
  /** The turn of the parent's model call at `at`. */
  turn: number;
  /** The parent's input. */
  input: string;
}

/**
 * Reads the prefix a fork re-enters from the parent's journal bytes. The chain must verify up to
 * `at - 1` and its event there must still have the hash the fork recorded.
 *
 * @example
 * ```ts
 * import { loadSpec } from "../spec/load.ts";
 *
 * // A fork's harness.yaml records where it re-enters its parent: fork {parent, run_id, at, head}.
 * const { spec } = await loadSpec("/h/refunds-fr");
 * const fork = spec.fork!;
 * const journal = await Deno.readFile(`/h/refunds/.framework/traces/${fork.run_id}.jsonl`);
 * const replay = replayFrom(journal, fork);
 * replay.messages; // what the parent's model was given at its call `fork.at`
 * ```
 * @param bytes The parent's journal.
 * @param fork The parent run, the re-entry seq and the recorded head.
 * @returns The replay.
 * @throws `conflict` naming the broken seq when the prefix was changed; `bad_input` when `at` is not
 *   one of the parent's model calls.
 */
export function replayFrom(
  bytes: Uint8Array,
  fork: { run_id: string; at: number; head?: string },
): Replay {
  const integrity = verifyJournal(bytes);
  if (integrity.broken_at !== null && integrity.broken_at < fork.at) {
    throw new FrameworkError(
      "conflict",
      `The journal of run ${fork.run_id} is broken at seq ${integrity.broken_at}, before the re-entry point ${fork.at}: the prefix cannot be trusted, so it is not replayed`,
      { run_id: fork.run_id, broken_at: integrity.broken_at },
    );
  }
  const events = parseJournal(bytes);
  const call = events.find((e) => e.seq === fork.at);
  if (call?.type !== "model_call") {
    const calls = events.filter((e) => e.type === "model_call").map((e) => e.seq);
    throw new FrameworkError(
      "bad_input",
      `seq ${fork.at} of run ${fork.run_id} is ${
        call ? `a ${call.type} event` : "not in its journal"
      }, not a model call; fork at one of: ${
        calls.join(", ") || "none (the run made no model call)"
      }`,
      { field: "at" },
    );
  }
  const prefix = events.filter((e) => e.seq < fork.at);
  const head = prefix.at(-1)!.hash;
  if (fork.head !== undefined && fork.head !== head) {
    throw new FrameworkError(
      "conflict",
      `The journal of run ${fork.run_id} changed since the fork: its event ${
        fork.at - 1
      } no longer has the hash the fork recorded, so the prefix is not replayed`,
      { run_id: fork.run_id, broken_at: fork.at - 1 },
    );
  }
  const started = prefix.find((e) => e.type === "run_started");
  const folded = foldContext(events, fork.at);
  return {
    parent_run_id: fork.run_id,
    at: fork.at,
    parent_head: head,
    events: prefix,
    messages: folded.messages,
    turn: folded.turn,
    input: typeof started?.payload.input === "string" ? started.payload.input : "",
  };
}
