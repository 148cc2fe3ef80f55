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
  /** How many of `messages` are new at `at` (the call's `append`): what an edit may change. */
  appended: number;
  /** A fork's edit of one of the new messages, applied to `messages` (see {@link withForkEdit}). */
  edit?: AppliedForkEdit;
}

/** A change a fork makes before it resumes: the next user message, or a tool result, replaced. */
export interface ForkEdit {
  kind: "user_message" | "tool_result";
  /** What the model is given instead. */
  replacement: string;
  /** The tool call whose result is replaced (needed when the call was given several). */
  call_id?: string | undefined;
}

/** An edit as it was applied: journalled as `fork_edited` after the replayed prefix. */
export interface AppliedForkEdit {
  /** The re-entry seq. */
  at: number;
  kind: ForkEdit["kind"];
  call_id?: string;
  /** The tool whose result was replaced. */
  tool?: string;
  original: string;
  replacement: string;
}

/**
 * Reads the prefix a fork re-enters from the parent's journal bytes. The chain must verify up to
 * `at - 1` and its event there must still have the hash the fork recorded.
 *
 * @example
 * ```ts
 * import { loadSpec } from "../harness_spec/load.ts";
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
    appended: Array.isArray(call.payload.append) ? call.payload.append.length : 0,
  };
}

/** The most characters a replacement may have. */
const MAX_REPLACEMENT = 100_000;

/**
 * Applies a fork's edit to the context it resumes with: the last user message, or a tool result,
 * among the messages the model call at the re-entry point was given new. The model of the resumed run
 * sees the replacement; the replayed prefix is unchanged, and the edit is journalled on its own.
 *
 * @example
 * ```ts
 * const journal = await Deno.readFile("/h/refunds/.framework/traces/run_01J9Z3K8Q4N6V2W7X5Y0A1B2C3.jsonl");
 * const replay = replayFrom(journal, { run_id: "run_01J9Z3K8Q4N6V2W7X5Y0A1B2C3", at: 7 });
 * const edited = withForkEdit(replay, { kind: "tool_result", call_id: "c2", replacement: "[]" });
 * edited.edit?.original; // what the tool had answered
 * ```
 * @param replay The replay, as {@link replayFrom} read it.
 * @param edit The edit, or nothing (the replay is returned as it is).
 * @returns The replay with the edited messages and the applied edit.
 * @throws `bad_input` when the call was given no such message, or a tool result is ambiguous.
 */
export function withForkEdit(replay: Replay, edit: ForkEdit | undefined): Replay {
  if (!edit) return replay;
  const refuse = (message: string, field = "edit.kind") =>
    new FrameworkError("bad_input", message, { field });
  if (typeof edit.replacement !== "string" || edit.replacement.length > MAX_REPLACEMENT) {
    throw refuse(
      `The edit's replacement must be text of at most ${MAX_REPLACEMENT} characters`,
      "edit.replacement",
    );
  }
  const first = replay.messages.length - replay.appended;
  const fresh = replay.messages.map((m, i) => ({ m, i })).filter(({ i }) => i >= first);
  const given = fresh.map(({ m }) =>
    m.role === "tool"
      ? `the result of ${m.name} (${m.tool_call_id})`
      : `${m.role === "assistant" ? "an" : "a"} ${m.role} message`
  );
  const what = given.length ? given.join(", ") : "nothing new";
  let index: number;
  if (edit.kind === "user_message") {
    const last = fresh.findLast(({ m }) => m.role === "user");
    if (!last) {
      throw refuse(
        `The model call at seq ${replay.at} was given no new user message (it was given ${what}); edit a tool result instead`,
      );
    }
    index = last.i;
  } else {
    const results = fresh.filter(({ m }) => m.role === "tool");
    if (!results.length) {
      throw refuse(
        `The model call at seq ${replay.at} was given no tool result (it was given ${what}); edit the user message instead`,
      );
    }
    const ids = results.map(({ m }) => (m as { tool_call_id: string }).tool_call_id);
    const chosen = edit.call_id === undefined
      ? (results.length === 1 ? results[0] : undefined)
      : results.find(({ m }) => m.role === "tool" && m.tool_call_id === edit.call_id);
    if (!chosen) {
      throw refuse(
        edit.call_id === undefined
          ? `The model call at seq ${replay.at} was given ${results.length} tool results; name one with call_id: ${
            ids.join(", ")
          }`
          : `The model call at seq ${replay.at} was given no result of call ${
            JSON.stringify(edit.call_id)
          }; call ids: ${ids.join(", ")}`,
        "edit.call_id",
      );
    }
    index = chosen.i;
  }
  const original = replay.messages[index]!;
  const messages = replay.messages.slice();
  messages[index] = original.role === "tool"
    ? {
      role: "tool",
      tool_call_id: original.tool_call_id,
      name: original.name,
      content: edit.replacement,
    }
    : { ...original, content: edit.replacement } as Message;
  return {
    ...replay,
    messages,
    edit: {
      at: replay.at,
      kind: edit.kind,
      ...(original.role === "tool" ? { call_id: original.tool_call_id, tool: original.name } : {}),
      original: original.content,
      replacement: edit.replacement,
    },
  };
}
