/**
 * Equipping a run, before its first turn: its tools (builtins and code, MCP servers, the shell's own),
 * guardrails and validators; a resumed fork's replayed prefix; `run_started` with what the run is
 * given; warnings for what could not be loaded; the `run_start` hooks; the input through the
 * guardrails; and the model's provider.
 *
 * @module
 */

import { connectMcpServers } from "../tools/mcp.ts";
import { buildToolset } from "../tools/toolset.ts";
import { guard } from "./guard.ts";
import { buildGuardrails } from "./guardrails.ts";
import { connectModel } from "./model_in_use.ts";
import { modeTools } from "./playbooks.ts";
import type { RunSession } from "./run_session.ts";
import { buildValidators } from "./validators.ts";

/** Builds the run's tools, guardrails and validators (MCP servers are started here). */
async function loadEquipment(session: RunSession): Promise<string[][]> {
  const { spec, sandboxes, limits, run } = session;
  const options = run.prepared.options;
  const toolset = await buildToolset(spec, sandboxes, limits.tool_timeout_s);
  const equipment = session.equipment;
  equipment.tools = toolset.tools;
  if (spec.mcp_servers?.length) {
    equipment.mcp = await connectMcpServers(spec, session.loaded.dir, {
      trusted: run.prepared.trusted,
      defaultTimeoutS: limits.tool_timeout_s,
    });
    for (const t of equipment.mcp.tools) toolset.tools.set(t.spec.name, t);
  }
  for (const t of options.extraTools ?? []) toolset.tools.set(t.spec.name, t);
  session.offered = modeTools(toolset.tools, session.mode);
  equipment.guardrails = buildGuardrails(
    spec,
    sandboxes,
    limits.tool_timeout_s,
    options.costCapUsd,
  );
  equipment.validators = buildValidators(spec, sandboxes, limits.tool_timeout_s);
  return [
    ...toolset.problems.map((p) => ["tool_unavailable", p.name, p.message]),
    ...(equipment.mcp?.problems ?? []).map((p) => ["mcp_unavailable", p.name, p.message]),
  ];
}

/**
 * A resumed fork's journal opens with where it re-enters, then the parent's prefix, replayed; so does
 * a run taken up after a person's approval.
 */
function replayPrefix(session: RunSession): void {
  const { replay, resumed } = session.run.prepared.options;
  if (resumed) {
    session.emit("run_resumed", {
      parent_run_id: resumed.parent_run_id,
      at: resumed.at,
      approval_id: resumed.approval_id,
      parent_head: resumed.parent_head,
    });
    for (const e of resumed.events) {
      session.emit("replayed", { original_seq: e.seq, original_type: e.type, payload: e.payload });
    }
    session.turns = resumed.turn;
    return;
  }
  if (!replay) return;
  session.emit("fork_resumed", {
    parent_run_id: replay.parent_run_id,
    at: replay.at,
    parent_head: replay.parent_head,
  });
  // Nothing of the prefix runs again: each event is journalled as replayed.
  for (const e of replay.events) {
    session.emit("replayed", { original_seq: e.seq, original_type: e.type, payload: e.payload });
  }
  // What the fork changed, on its own after the prefix: the chain proves both.
  if (replay.edit) session.emit("fork_edited", { ...replay.edit });
  session.turns = replay.turn - 1;
}

/** `run_started`: what the run was given, as the journal's first event of its own. */
function journalStart(session: RunSession) {
  const { run, spec, loaded, equipment } = session;
  const { prepared } = run;
  const options = prepared.options;
  const replay = options.replay;
  return session.emit("run_started", {
    run_id: run.run_id,
    harness_id: spec.id,
    spec_version: loaded.version,
    input: prepared.inputText,
    ...(prepared.input_file ? { input_file: prepared.input_file } : {}),
    ...(options.inputNote ? { input_note: options.inputNote } : {}),
    ...(options.threadId ? { thread_id: options.threadId } : {}),
    parent_run_id: options.parentRunId ?? null,
    ...(replay ? { reentry_seq: replay.at } : {}),
    ...(options.resumed ? { resumed_at: options.resumed.at } : {}),
    model: { provider: session.model.spec.provider, name: session.model.spec.name ?? null },
    ...(spec.playbooks?.length ? { playbook: session.mode?.name ?? null } : {}),
    limits: session.limits,
    system: session.system,
    ...(session.callerInstructions ? { caller_instructions: session.callerInstructions } : {}),
    tools: [...equipment.tools.values()].map((t) => t.spec),
    guardrails: equipment.guardrails.map((g) => ({ name: g.name, kind: g.kind })),
    validators: equipment.validators.map((v) => ({ name: v.name, kind: v.kind })),
  });
}

/**
 * Equips a run and journals its start; the input then passes the guardrails (a fork's replaced user
 * message too) and the model's provider is made.
 *
 * @example
 * ```ts
 * import { openSession, type LaunchedRun } from "./run_session.ts";
 *
 * declare const run: LaunchedRun;
 * const session = openSession(run);
 * await equip(session);
 * session.offered.size; // the tools the first model call is offered
 * ```
 * @param session The run.
 * @throws `RunStop` (`guardrail_halt`) when a guardrail trips on the input; an MCP or provider error.
 */
export async function equip(session: RunSession): Promise<void> {
  const problems = await loadEquipment(session);
  replayPrefix(session);
  const started = journalStart(session);
  for (const [code, tool, message] of problems) {
    session.emit("warning", { code, tool, message });
  }
  await session.hooks("run_start", started.payload);
  await guard(session, { stage: "input" });
  const edit = session.run.prepared.options.replay?.edit;
  // A fork's replaced user message is an input like any other.
  if (edit?.kind === "user_message") {
    await guard(session, { stage: "input", input: edit.replacement });
  }
  connectModel(session);
  session.pending = firstMessages(session);
}

/** What the first model call is given: a resumed fork's context, or the history and the input. */
function firstMessages(session: RunSession) {
  const { prepared } = session.run;
  const options = prepared.options;
  if (options.resumed) {
    // Taken up inside a turn: what was sent, and what the next call adds (the answer, its results).
    session.messages = structuredClone(options.resumed.messages);
    return structuredClone(options.resumed.pending);
  }
  if (options.replay) return structuredClone(options.replay.messages);
  const input = prepared.inputText;
  return [...(options.history ?? []), {
    role: "user" as const,
    content: options.inputNote ? `${input}\n\n${options.inputNote}` : input,
  }];
}
