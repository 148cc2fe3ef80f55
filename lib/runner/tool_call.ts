/**
 * One tool call of a turn: journalled as `tool_call`, run within its time limit (and the run's
 * signal), and answered to the model as a `tool_result` — a failure the model reads, never the end of
 * the run. A call that may not run (a person denied it) is journalled and answered the same way,
 * without running.
 *
 * @module
 */

import type { JournalEvent } from "../journal/event.ts";
import type { Message, ToolCall } from "../models/types.ts";
import { abortable } from "../sleep.ts";
import { ToolError } from "../tools/tool.ts";
import { handOff } from "./hand_off.ts";
import type { RunSession } from "./run_session.ts";

/** Races a tool's work against its time limit and the run's signal. */
async function withTimeout<T>(promise: Promise<T>, ms: number, signal: AbortSignal): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new ToolError("timeout", `The tool did not finish within ${ms / 1000} s`)),
      ms,
    );
  });
  try {
    return await abortable(Promise.race([promise, limit]), signal);
  } finally {
    clearTimeout(timer);
  }
}

/** Runs the tool a call names, and answers its text (a failure throws for the model to read). */
async function runTool(session: RunSession, call: ToolCall): Promise<{
  content: string;
  logs?: string[];
}> {
  const { offered } = session;
  const tool = offered.get(call.name);
  if (!tool) {
    throw new ToolError(
      "unknown_tool",
      `No tool named ${JSON.stringify(call.name)}; tools: ${
        [...offered.keys()].join(", ") || "none"
      }`,
    );
  }
  const { run, loaded } = session;
  const delegator = run.prepared.options.delegator;
  // Code tools enforce their own limit (they kill their sandbox); this outer limit is a backstop.
  const out = await withTimeout(
    tool.run(call.arguments ?? {}, {
      harnessDir: loaded.dir,
      traceDirs: run.prepared.traceDirs,
      spec: loaded.spec,
      runId: run.run_id,
      signal: session.signal,
      ...(delegator ? { delegate: (task, peer) => handOff(session, delegator, task, peer) } : {}),
      switchPlaybook: (name) => {
        run.controls.switchPlaybook(name, "model");
        return `Switching to the ${name} mode at the end of this turn, if its gates allow it.`;
      },
    }),
    (tool.timeout_s ?? session.limits.tool_timeout_s) * 1000 + (tool.source === "code" ? 5000 : 0),
    session.signal,
  );
  return typeof out === "string" ? { content: out } : out;
}

/** Journals a call's result and gives the model its message. */
function answer(
  session: RunSession,
  call: ToolCall,
  origin: Record<string, unknown>,
  outcome: { content: string; logs?: string[]; error?: { code: string; message: string } },
  t0: number,
): { message: Message; event: JournalEvent } {
  const { content, logs, error } = outcome;
  const event = session.emit("tool_result", {
    turn: session.turns,
    id: call.id,
    name: call.name,
    ...origin,
    ok: !error,
    ...(error ? { error } : { content }),
    ...(logs?.length ? { logs } : {}),
    duration_ms: Math.round(performance.now() - t0),
  });
  return {
    message: {
      role: "tool",
      tool_call_id: call.id,
      name: call.name,
      content,
      ...(error ? { is_error: true } : {}),
    },
    event,
  };
}

/**
 * Answers a call without running it (a person denied it, or no one decided in time): journalled as
 * `tool_call` and a failed `tool_result`, read by the model as a tool error.
 *
 * @example
 * ```ts
 * import type { RunSession } from "./run_session.ts";
 *
 * declare const session: RunSession;
 * const call = { id: "c1", name: "file_write", arguments: { path: "a", content: "b" } };
 * await refuseToolCall(session, call, "denied", "denied by a person: not now");
 * ```
 * @param session The run.
 * @param call The call.
 * @param code The error's code.
 * @param message What the model reads.
 * @returns The message the model reads, and the `tool_result` event.
 */
export function refuseToolCall(
  session: RunSession,
  call: ToolCall,
  code: string,
  message: string,
): { message: Message; event: JournalEvent } {
  const origin = originOf(session, call);
  session.emit("tool_call", {
    turn: session.turns,
    id: call.id,
    name: call.name,
    arguments: call.arguments,
    ...origin,
  });
  const error = { code, message };
  return answer(
    session,
    call,
    origin,
    { content: `Error (${code}): ${message}`, error },
    performance.now(),
  );
}

/** Where a call's tool comes from, as its events name it. */
function originOf(session: RunSession, call: ToolCall): Record<string, unknown> {
  const tool = session.offered.get(call.name);
  return tool?.source === "mcp" ? { source: "mcp", server: tool.server } : {};
}

/**
 * Runs one tool call of the current turn and journals it (`tool_call`, then `tool_result`).
 *
 * @example
 * ```ts
 * import type { RunSession } from "./run_session.ts";
 *
 * declare const session: RunSession;
 * const { message } = await runToolCall(session, { id: "c1", name: "list_files", arguments: {} });
 * message.role; // "tool": what the model reads next
 * ```
 * @param session The run.
 * @param call The call the model asked for.
 * @returns The message the model reads, and the `tool_result` event.
 * @throws The run's signal's reason when the run is stopped or times out during the call.
 */
export async function runToolCall(
  session: RunSession,
  call: ToolCall,
): Promise<{ message: Message; event: JournalEvent }> {
  const origin = originOf(session, call);
  session.emit("tool_call", {
    turn: session.turns,
    id: call.id,
    name: call.name,
    arguments: call.arguments,
    ...origin,
  });
  const t0 = performance.now();
  try {
    return answer(session, call, origin, await runTool(session, call), t0);
  } catch (err) {
    if (session.signal.aborted) throw session.signal.reason;
    const error = err instanceof ToolError
      ? { code: err.code, message: err.message }
      : { code: "failed", message: (err as Error)?.message ?? String(err) };
    const logs = (err as { logs?: string[] }).logs;
    return answer(session, call, origin, {
      content: `Error (${error.code}): ${error.message}`,
      ...(logs ? { logs } : {}),
      error,
    }, t0);
  }
}
