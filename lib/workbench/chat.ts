/**
 * One chat turn with the copilot: the user's message is stored at once; the copilot runs as a
 * journalled run of its own harness with the conversation so far and its constrained tools; the
 * assistant's message (with its tool activity and artifacts) and the selection are stored when the run
 * ends. The stream opens with `run_accepted` carrying the pre-allocated run id. A slash command
 * (`/run hello`) is the same turn with the command's script as the model (see slash_commands.ts).
 *
 * @module
 */

import { badInput, FrameworkError, notFound } from "../errors.ts";
import type { Hive } from "../hive/open.ts";
import type { JournalEvent } from "../journal/event.ts";
import { findRun } from "../journal/trace.ts";
import type { Message } from "../models/types.ts";
import type { ModelSpec } from "../harness_spec/schema.ts";
import { createEventStream } from "../runner/event_stream.ts";
import { newRunId } from "../ids.ts";
import type { RunHandle } from "../runner/run_handle.ts";
import { type TraceFrame, traceFrame } from "../runs/frames.ts";
import type { RunFinder } from "../runs/controls.ts";
import type { RunService } from "../runs/service.ts";
import type { RunResult } from "../run_types.ts";
import {
  addMessage,
  attachArtifacts,
  type ChatMessage,
  getConversation,
  listArtifacts,
  listMessages,
  type MessagePart,
  updateConversation,
} from "./conversations.ts";
import type { Copilot, CopilotModel } from "./copilot/setup.ts";
import { COPILOT_SETUP_HELP } from "./copilot/setup.ts";
import { type CopilotContext, copilotTools } from "./copilot/tools.ts";
import type { WorkbenchDb } from "./db.ts";
import { commandModel, slashCommand } from "./slash_commands.ts";

/** The copilot run of each conversation's turn in flight, in this process. */
const pending = new Map<string, string>();
/** The copilot run of each conversation's latest turn in this process, in flight or ended. */
const latest = new Map<string, string>();
/** The target runs each conversation's turn in flight has started (cleared when it ends). */
const targets = new Map<string, TargetRun[]>();

/** A target run a copilot tool started during a turn. */
export interface TargetRun {
  run_id: string;
  harness_id: string;
}

/**
 * The copilot run of a conversation's turn still in flight (a page opened mid-turn waits for it).
 *
 * @param conversationId The conversation.
 * @returns The run id, or null.
 */
export function pendingTurn(conversationId: string): string | null {
  return pending.get(conversationId) ?? null;
}

/**
 * The copilot run of a conversation's latest turn, and how its controls find it: the chat steers and
 * stops its own turn through the conversation (`/api/conversations/{id}/turn/…`), while the run
 * routes, which do not show the copilot's runs, never reach it. Once the turn has ended its messages
 * stay readable and every control is a conflict, as for any run.
 *
 * @param conversationId The conversation.
 * @returns The run id and a finder that knows that run alone.
 * @throws `conflict` when the conversation has had no turn in this process.
 */
export function conversationTurn(conversationId: string): { runId: string; find: RunFinder } {
  const runId = latest.get(conversationId);
  if (!runId) {
    throw new FrameworkError(
      "conflict",
      `No turn of conversation ${
        JSON.stringify(conversationId)
      } is in flight; steer or stop a turn while it runs`,
      { conversation_id: conversationId },
    );
  }
  return {
    runId,
    find: (db, id) => {
      if (id !== runId) throw notFound(`Unknown run ${JSON.stringify(id)}`);
      return findRun(db, null, id);
    },
  };
}

/**
 * A conversation as the page shows it: the record, its messages and artifacts, and the copilot run of
 * a turn still in flight.
 *
 * @param db The workbench database.
 * @param id The conversation.
 * @returns The view.
 */
export function conversationView(db: WorkbenchDb, id: string) {
  const conversation = getConversation(db, id);
  return {
    conversation,
    messages: listMessages(db, conversation.id),
    artifacts: listArtifacts(db, conversation.id),
    pending_run_id: pendingTurn(conversation.id),
    /** The target runs the turn in flight has started (a page opened mid-turn shows their cards). */
    turn_runs: targets.get(conversation.id) ?? [],
  };
}

/** The frames of a chat turn. */
export type ChatFrame =
  | { frame: "run_accepted"; run_id: string; conversation_id: string; user_message_id: string }
  | (TraceFrame & { run_id: string })
  | { frame: "delta"; run_id: string; turn: number; text: string }
  /** A copilot tool started a target run (`run_id` is the copilot's, as on every frame). */
  | { frame: "target_run"; run_id: string; target_run_id: string; harness_id: string }
  | { frame: "message"; message: ChatMessage; selection: CopilotContext["selection"] }
  | { frame: "run_result"; result: RunResult };

/** What a chat turn needs from the workbench. */
export interface ChatEnvironment {
  hive: Hive;
  db: WorkbenchDb;
  copilot: Copilot;
  copilotModel: CopilotModel | undefined;
  /** Where new harnesses are created. */
  harnessesDir: string;
  /** The workbench's runs (the copilot's turns and the targets it runs). */
  runs: RunService;
}

/** A chat request: the text and the selection it was sent with. */
export interface ChatRequest {
  message: string;
  /** The selection of this request (default: the conversation's). */
  selection?: { harness_id?: string | null; run_id?: string | null };
}

/** How many earlier messages are sent to the copilot. */
const HISTORY = 40;

/** The conversation so far as model messages (text only: tool activity stays in the journals). */
function history(messages: ChatMessage[]): Message[] {
  return messages.slice(-HISTORY).filter((m) => m.content.trim()).map((m) =>
    m.role === "user"
      ? { role: "user", content: m.content }
      : { role: "assistant", content: m.content }
  );
}

/** The selection line the copilot sees after each message (kept apart from the user's text). */
function selectionNote(sel: CopilotContext["selection"]): string {
  const parts = [sel.harness_id ? `selected harness: ${sel.harness_id}` : "no harness selected"];
  if (sel.run_id) parts.push(`selected run: ${sel.run_id}`);
  return `[workbench: ${parts.join(", ")}]`;
}

/**
 * What a copilot run said and did, in order, for the stored message: the text of every turn (not only
 * the last, which is the run's output) and the tool activity between them, so the stored message reads
 * as the reply streamed.
 */
function activity(events: readonly JournalEvent[]): MessagePart[] {
  const calls = new Map<string, { name: string; arguments: unknown }>();
  const parts: MessagePart[] = [];
  for (const e of events) {
    if (
      e.type === "model_response" && typeof e.payload.text === "string" && e.payload.text.trim()
    ) {
      parts.push({ type: "text", text: e.payload.text });
    }
    if (e.type === "tool_call") {
      calls.set(String(e.payload.id), {
        name: String(e.payload.name),
        arguments: e.payload.arguments,
      });
    }
    if (e.type === "tool_result") {
      const call = calls.get(String(e.payload.id));
      const result = e.payload.ok
        ? String(e.payload.content ?? "")
        : `${(e.payload.error as { message?: string })?.message ?? "failed"}`;
      parts.push({
        type: "tool",
        name: call?.name ?? String(e.payload.name),
        arguments: call?.arguments ?? {},
        ok: e.payload.ok === true,
        result: result.length > 4000 ? `${result.slice(0, 4000)}…` : result,
      });
    }
  }
  return parts;
}

/**
 * Stores the user's message and the request's selection (and names a new conversation after its
 * first message).
 */
function openTurn(env: ChatEnvironment, conversationId: string, request: ChatRequest) {
  const conversation = getConversation(env.db, conversationId);
  if (typeof request.message !== "string" || !request.message.trim()) {
    throw badInput("A message needs text");
  }
  if (request.message.length > 100_000) throw badInput("A message is at most 100,000 characters");
  const selection: CopilotContext["selection"] = {
    harness_id: request.selection?.harness_id !== undefined
      ? request.selection.harness_id
      : conversation.selected_harness_id,
    run_id: request.selection?.run_id !== undefined
      ? request.selection.run_id
      : conversation.selected_run_id,
  };
  const earlier = listMessages(env.db, conversationId);
  const user = addMessage(env.db, {
    conversation_id: conversationId,
    role: "user",
    content: request.message,
    parts: [],
    run_id: null,
  });
  updateConversation(env.db, conversationId, {
    selected_harness_id: selection.harness_id,
    selected_run_id: selection.run_id,
    ...(earlier.length === 0 && conversation.title === "New conversation"
      ? { title: request.message.slice(0, 60) }
      : {}),
  });
  return { selection, earlier, user };
}

/**
 * Stores the copilot's reply when its run ends: every turn's text and tool activity in order, a note
 * when it did not finish, the turn's artifacts, and the selection its tools left.
 */
function storeReply(
  env: ChatEnvironment,
  ctx: CopilotContext,
  run: RunHandle,
  result: RunResult,
): ChatMessage {
  const said = activity(run.events.snapshot());
  const texts = said.flatMap((p) => (p.type === "text" ? [p.text] : []));
  // Everything the copilot said; a turn that failed keeps what was said, then says why.
  const content = texts.length ? texts.join("\n\n") : result.output;
  const parts: MessagePart[] = [
    ...said,
    ...(result.status === "success" ? [] : [{
      type: "notice" as const,
      text: `The copilot could not finish (${result.status}${
        result.error ? `: ${result.error.message}` : ""
      }).`,
    }]),
    ...ctx.artifacts.map((id): MessagePart => ({ type: "artifact", artifact_id: id })),
  ];
  const message = addMessage(env.db, {
    conversation_id: ctx.conversationId,
    role: "assistant",
    content,
    parts,
    run_id: run.run_id,
  });
  attachArtifacts(env.db, ctx.artifacts, message.id);
  updateConversation(env.db, ctx.conversationId, {
    selected_harness_id: ctx.selection.harness_id,
    selected_run_id: ctx.selection.run_id,
  });
  return message;
}

/**
 * Starts a chat turn. Bad input (an unknown conversation, an empty message) throws before anything is
 * stored.
 *
 * @example
 * ```ts
 * import { createConversation } from "./conversations.ts";
 *
 * declare const env: ChatEnvironment; // the workbench API's (routes/workbench_api.ts)
 * const { id } = createConversation(env.db, { title: "Refunds" });
 * const turn = await startChatTurn(env, id, { message: "Create a harness for refunds" });
 * for await (const f of turn.frames) console.log(f.frame);
 * ```
 * @param env The workbench's databases, copilot and settings.
 * @param conversationId The conversation.
 * @param request The message and its selection.
 * @returns The frames of the turn.
 */
export async function startChatTurn(
  env: ChatEnvironment,
  conversationId: string,
  request: ChatRequest,
): Promise<{ frames: AsyncGenerator<ChatFrame> }> {
  const { selection, earlier, user } = openTurn(env, conversationId, request);
  // A slash command calls a copilot tool with no model; anything else needs the copilot's model.
  const command = slashCommand(request.message);
  const answer = (content: string, parts: MessagePart[]) => {
    const reply = addMessage(env.db, {
      conversation_id: conversationId,
      role: "assistant",
      content,
      parts,
      run_id: null,
    });
    return {
      frames: (async function* (): AsyncGenerator<ChatFrame> {
        yield { frame: "message", message: reply, selection };
      })(),
    };
  };
  if (command && "reply" in command) return answer(command.reply, []);
  if (!command && !env.copilotModel) {
    return answer(COPILOT_SETUP_HELP, [{ type: "notice", text: "no copilot model configured" }]);
  }
  const model: ModelSpec = command
    ? { provider: "scripted", name: `/${command.command.name}` }
    : env.copilotModel!.model;
  const ctx: CopilotContext = {
    hive: env.hive,
    db: env.db,
    runs: env.runs,
    conversationId,
    selection,
    harnessesDir: env.harnessesDir,
    artifacts: [],
  };
  // Journal events and the reply's text as it is generated, in the order they happen.
  const live = createEventStream<ChatFrame>();
  const runId = newRunId();
  const started: TargetRun[] = [];
  ctx.onTargetRun = (target) => {
    started.push(target);
    live.push({
      frame: "target_run",
      run_id: runId,
      target_run_id: target.run_id,
      harness_id: target.harness_id,
    });
  };
  const submitted = await env.runs.submit(env.copilot.trusted, { input: request.message }, {
    runId,
    spec: { ...env.copilot.spec, spec: { ...env.copilot.spec.spec, model } },
    inputNote: selectionNote(selection),
    // A command's script reads only its tool's answer: the conversation so far is not sent.
    history: command ? [] : history(earlier),
    extraTools: copilotTools(ctx),
    onText: ({ turn, text }) => live.push({ frame: "delta", run_id: runId, turn, text }),
    ...(command ? { createProvider: () => commandModel(command) } : {}),
  });
  const run = await submitted.started;
  pending.set(conversationId, run.run_id);
  latest.set(conversationId, run.run_id);
  targets.set(conversationId, started);
  // The turn is stored when the run ends, whoever is (still) listening.
  const done = run.result.then((result) => ({
    message: storeReply(env, ctx, run, result),
    result,
  }));
  // Journal events join the live stream as they are written; deltas carry their turn, so a reader
  // places them whatever the interleaving.
  (async () => {
    try {
      for await (const e of run.events) {
        live.push({ ...traceFrame(e), run_id: runId });
      }
      const { message, result } = await done;
      live.push({ frame: "message", message, selection });
      live.push({ frame: "run_result", result });
    } catch (err) {
      console.error(`workbench: the turn of ${runId} could not be stored:`, err);
    } finally {
      if (pending.get(conversationId) === runId) pending.delete(conversationId);
      if (targets.get(conversationId) === started) targets.delete(conversationId);
      live.close();
    }
  })();
  return {
    frames: (async function* () {
      yield {
        frame: "run_accepted",
        run_id: runId,
        conversation_id: conversationId,
        user_message_id: user.id,
      };
      yield* live;
    })(),
  };
}
