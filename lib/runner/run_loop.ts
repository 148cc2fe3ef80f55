/**
 * The agent loop of one run: guardrails on the input, then turns (one model call plus the tool calls
 * it asked for) until a final answer, which the validators check. Controls are drained only at turn
 * boundaries. Every outcome, including failures, ends in exactly one status and one `run_finished`.
 *
 * @module
 */

import { linkSignals } from "../linked_signal.ts";
import { deadline } from "../deadline.ts";
import { abortable } from "../sleep.ts";
import type { JournalEvent } from "../journal/event.ts";
import type { JournalWriter } from "../journal/writer.ts";
import { costOf, priceOf } from "../models/pricing.ts";
import type { ProviderContext } from "../models/registry.ts";
import { withRetries } from "../models/retry.ts";
import { type Message, type ModelProvider, ProviderError, type ToolCall } from "../models/types.ts";
import type { LoadedSpec } from "../spec/load.ts";
import type { ModelSpec } from "../spec/schema.ts";
import { createSandboxPool } from "../tools/sandbox.ts";
import { type Tool, ToolError } from "../tools/tool.ts";
import { buildToolset } from "../tools/toolset.ts";
import type { EventStream } from "./event_stream.ts";
import { failureSignature } from "./failure_signature.ts";
import { buildGuardrails, firstTrip, type GuardState } from "./guardrails.ts";
import { buildHooks } from "./hooks.ts";
import { composeSystemPrompt } from "./prompt.ts";
import { type RunResult, type RunStatus, STOPPED_REASON, type TextDelta } from "../run_types.ts";
import { buildValidators } from "./validators.ts";
import type { Replay } from "./replay.ts";
import type { DelegationContext, Delegator } from "./delegation.ts";
import type { Delegation } from "../run_types.ts";
import { connectMcpServers, McpServerError, type McpTools } from "../tools/mcp.ts";
import { modelLabel, type RunControls } from "./controls.ts";
import {
  callGate,
  defaultPlaybook,
  modeNote,
  modeSystem,
  modeTools,
  type Playbook,
} from "./playbooks.ts";

/** Limits applied when the spec sets none. */
export const DEFAULT_LIMITS = { max_turns: 10, timeout_s: 600, tool_timeout_s: 60 } as const;

/** Everything the loop needs, prepared by `startRun`. */
export interface LoopContext {
  run_id: string;
  loaded: LoadedSpec;
  /** The protected trace folders, refused by file tools and code (see `PreparedRun.traceDirs`). */
  traceDirs: readonly string[];
  inputText: string;
  input_file: string | undefined;
  started: Date;
  journal: JournalWriter;
  events: EventStream<JournalEvent>;
  signal: AbortSignal | undefined;
  parentRunId: string | null;
  makeProvider: (model: ModelSpec, ctx: ProviderContext) => ModelProvider;
  /** Earlier conversation messages, sent before the input. */
  history: Message[];
  /** Context sent to the model after the input (not part of the input). */
  inputNote?: string | undefined;
  /** Tools added to the spec's. */
  extraTools: Tool[];
  /** Sees reply text as it is generated. */
  onText: ((delta: TextDelta) => void) | undefined;
  /** The run's controls, taken at each turn boundary. */
  controls: RunControls;
  /** A fork's resume: the parent's prefix, replayed before the run goes on live. */
  replay?: Replay | undefined;
  /** Where the run stands in a chain of hand-offs. */
  delegation: DelegationContext;
  /** Hands a task to a peer (the run service's), when the run may delegate. */
  delegator?: Delegator | undefined;
  /** A delegated run's cost cap, set by the run that handed it over. */
  costCapUsd?: number | undefined;
  /** Whether the folder is trusted (MCP stdio servers start only then). */
  trusted: boolean;
}

/** Why a run ended before a normal final answer. */
class RunStop extends Error {
  constructor(readonly status: RunStatus, readonly reason: string[], message: string) {
    super(message);
  }
}

type Emit = (type: string, payload: Record<string, unknown>) => JournalEvent;

/** Races a promise against a time limit and the run's abort signal. */
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

/**
 * Runs the loop to its end. Never rejects: every failure becomes a status.
 *
 * @param ctx The prepared run.
 * @returns The run result.
 */
export async function runLoop(ctx: LoopContext): Promise<RunResult> {
  const { loaded, journal } = ctx;
  const spec = loaded.spec;
  const emit: Emit = (type, payload) => {
    const event = journal.append(type, payload);
    ctx.events.push(event);
    return event;
  };
  const limits = { ...DEFAULT_LIMITS, ...spec.limits };
  const runLimit = deadline(limits.timeout_s * 1000);
  const timeoutSignal = runLimit.signal;
  const runSignal = linkSignals(ctx.signal, timeoutSignal);
  const signal = runSignal.signal;
  const sandboxes = createSandboxPool(loaded.dir, ctx.traceDirs);
  const baseSystem = composeSystemPrompt(spec);
  let mode: Playbook | undefined = defaultPlaybook(spec);
  let system = modeSystem(baseSystem, mode);
  let modelSpec: ModelSpec = mode?.model ?? spec.model;
  let price = priceOf(modelSpec);
  const { controls } = ctx;
  controls.state.playbook = mode?.name ?? null;
  controls.state.model = modelLabel(modelSpec);
  let turns = 0;
  let cost = 0;
  let toolCalls = 0;
  let output = "";
  const delegations: Delegation[] = [];
  let delegatedCost = 0;
  let status: RunStatus = "success";
  let reason: string[] = [];
  let message = "";
  const hooks = buildHooks(spec, sandboxes, limits.tool_timeout_s, emit);
  let mcp: McpTools | undefined;

  try {
    const toolset = await buildToolset(spec, sandboxes, limits.tool_timeout_s);
    if (spec.mcp_servers?.length) {
      mcp = await connectMcpServers(spec, loaded.dir, {
        trusted: ctx.trusted,
        defaultTimeoutS: limits.tool_timeout_s,
      });
      for (const t of mcp.tools) toolset.tools.set(t.spec.name, t);
    }
    const mcpProblems = mcp?.problems ?? [];
    for (const t of ctx.extraTools) toolset.tools.set(t.spec.name, t);
    const toolSpecs = [...toolset.tools.values()].map((t) => t.spec);
    let offered = modeTools(toolset.tools, mode);
    const guardrails = buildGuardrails(spec, sandboxes, limits.tool_timeout_s, ctx.costCapUsd);
    const validators = buildValidators(spec, sandboxes, limits.tool_timeout_s);
    const { replay } = ctx;
    if (replay) {
      // The journal opens with where it re-enters, then the parent's prefix: nothing of it runs again.
      emit("fork_resumed", {
        parent_run_id: replay.parent_run_id,
        at: replay.at,
        parent_head: replay.parent_head,
      });
      for (const e of replay.events) {
        emit("replayed", { original_seq: e.seq, original_type: e.type, payload: e.payload });
      }
      // What the fork changed, on its own after the prefix: the chain proves both.
      if (replay.edit) emit("fork_edited", { ...replay.edit });
      turns = replay.turn - 1;
    }
    const started = emit("run_started", {
      run_id: ctx.run_id,
      harness_id: spec.id,
      spec_version: loaded.version,
      input: ctx.inputText,
      ...(ctx.input_file ? { input_file: ctx.input_file } : {}),
      ...(ctx.inputNote ? { input_note: ctx.inputNote } : {}),
      parent_run_id: ctx.parentRunId,
      ...(replay ? { reentry_seq: replay.at } : {}),
      model: { provider: modelSpec.provider, name: modelSpec.name ?? null },
      ...(spec.playbooks?.length ? { playbook: mode?.name ?? null } : {}),
      limits,
      system,
      tools: toolSpecs,
      guardrails: guardrails.map((g) => ({ name: g.name, kind: g.kind })),
      validators: validators.map((v) => ({ name: v.name, kind: v.kind })),
    });
    for (const p of toolset.problems) {
      emit("warning", { code: "tool_unavailable", tool: p.name, message: p.message });
    }
    for (const p of mcpProblems) {
      emit("warning", { code: "mcp_unavailable", tool: p.name, message: p.message });
    }
    await hooks("run_start", started.payload);

    const guard = async (
      state: Omit<GuardState, "input" | "cost_usd" | "tool_calls" | "turn"> & { input?: string },
    ) => {
      const trip = await firstTrip(guardrails, {
        input: ctx.inputText,
        ...state,
        cost_usd: cost,
        tool_calls: toolCalls,
        turn: turns,
      });
      if (!trip) return;
      emit("guardrail", {
        name: trip.guardrail.name,
        kind: trip.guardrail.kind,
        stage: state.stage,
        turn: turns,
        reason: trip.reason,
      });
      throw new RunStop(
        "guardrail_halt",
        [trip.guardrail.name],
        `${trip.guardrail.name}: ${trip.reason}`,
      );
    };
    await guard({ stage: "input" });
    // A fork's replaced user message is an input like any other.
    if (replay?.edit?.kind === "user_message") {
      await guard({ stage: "input", input: replay.edit.replacement });
    }

    const retrying = (raw: ModelProvider, model: ModelSpec) =>
      withRetries(
        raw,
        { maxRetries: model.max_retries ?? 3 },
        (notice) => emit("model_retry", { turn: turns, ...notice }),
      );
    let rawProvider = ctx.makeProvider(modelSpec, { harnessDir: loaded.dir, input: ctx.inputText });
    let provider = retrying(rawProvider, modelSpec);
    const messages: Message[] = [];
    // A resumed fork's first call is given the parent's context at the re-entry point.
    let pending: Message[] = replay ? structuredClone(replay.messages) : [...ctx.history, {
      role: "user",
      content: ctx.inputNote ? `${ctx.inputText}\n\n${ctx.inputNote}` : ctx.inputText,
    }];
    let warnedPrice = false;

    /** Uses another model from the next call on; false (and a warning) when it cannot be made. */
    const useModel = (next: ModelSpec, turn: number, by: string): boolean => {
      const from = modelLabel(modelSpec);
      // A scripted model named without replies of its own goes on with the current script.
      const keepScript = next.provider === "scripted" && !next.replies && !next.scenarios &&
        modelSpec.provider === "scripted";
      const resolved: ModelSpec = keepScript ? { ...modelSpec, name: next.name } : next;
      let raw: ModelProvider;
      try {
        raw = keepScript
          ? { ...rawProvider, model: resolved.name ?? "scripted" }
          : ctx.makeProvider(resolved, { harnessDir: loaded.dir, input: ctx.inputText });
      } catch (err) {
        emit("warning", {
          code: "model_change_failed",
          turn,
          message: `The run keeps ${from}: ${modelLabel(next)} could not be used: ${
            (err as Error).message
          }`,
        });
        return false;
      }
      rawProvider = raw;
      provider = retrying(raw, resolved);
      modelSpec = resolved;
      price = priceOf(resolved);
      warnedPrice = false;
      controls.state.model = modelLabel(resolved);
      emit("model_changed", { from, to: modelLabel(resolved), turn, by });
      return true;
    };

    /** Switches mode through both gates; whether the model was told something. */
    const switchMode = async (name: string, turn: number, by: string): Promise<boolean> => {
      const to = spec.playbooks!.find((p) => p.name === name)!;
      const from = mode;
      for (const [gate, ref] of [["on_exit", from?.on_exit], ["on_enter", to.on_enter]] as const) {
        if (!ref) continue;
        const event = { run_id: ctx.run_id, from: from?.name ?? null, to: to.name, turn, gate };
        // A stop with `now` while the gate runs throws here, and the run stops.
        const verdict = await callGate(sandboxes, ref, event, limits.tool_timeout_s * 1000, signal);
        if (verdict.allow) continue;
        const reason = verdict.reason ?? `The ${gate} gate refused`;
        emit("playbook_refused", { from: from?.name ?? null, to: to.name, gate, reason, turn, by });
        if (by !== "model") return false;
        pending.push({
          role: "user",
          content: `Mode change from ${
            from?.name ?? "none"
          } to ${to.name} was refused (${gate}): ${reason}`,
        });
        return true;
      }
      mode = to;
      offered = modeTools(toolset.tools, mode);
      controls.state.playbook = to.name;
      emit("playbook_changed", { from: from?.name ?? null, to: to.name, turn, by });
      const nextSystem = modeSystem(baseSystem, mode);
      if (nextSystem !== system) {
        system = nextSystem;
        emit("system_changed", { system, turn });
      }
      pending.push({ role: "user", content: modeNote(from, to) });
      if (to.model) useModel(to.model, turn, `playbook:${to.name}`);
      return true;
    };

    /**
     * A turn boundary: applies the queued controls in order, each as one journal event. Returns
     * whether the model has something new to read.
     */
    const boundary = async (): Promise<boolean> => {
      let told = false;
      const turn = turns + 1;
      for (const item of controls.take(turn)) {
        if (item.kind === "message") {
          pending.push({ role: "user", content: item.message.text });
          emit("steering_delivered", {
            message_id: item.message.id,
            text: item.message.text,
            turn,
          });
          told = true;
        } else if (item.kind === "model") {
          useModel(item.model, turn, item.by);
        } else if (item.kind === "playbook") {
          told = (await switchMode(item.name, turn, item.by)) || told;
        } else {
          emit("run_stopped", { turn: turns, by: item.by });
          throw new RunStop("error", [STOPPED_REASON], "The run was stopped");
        }
      }
      return told;
    };

    /** The `delegate` tool: hands the task over and adds what the child cost to this run's. */
    const delegateFor = async (task: string, peer?: string): Promise<string> => {
      const caps = [spec.limits?.max_cost_usd, ctx.costCapUsd].filter((x) => x !== undefined);
      const outcome = await ctx.delegator!({
        task,
        ...(peer !== undefined ? { peer } : {}),
        parent: {
          run_id: ctx.run_id,
          harness_id: spec.id,
          dir: loaded.dir,
          context: ctx.delegation,
          remaining_usd: caps.length ? Math.max(0, Math.min(...caps) - cost) : undefined,
        },
        emit,
        signal,
      });
      if (!outcome.delegated) throw new ToolError("declined", outcome.reason);
      cost += outcome.delegation.cost_usd;
      delegatedCost += outcome.delegation.cost_usd;
      delegations.push(outcome.delegation);
      return JSON.stringify({
        peer: outcome.delegation.peer,
        status: outcome.delegation.status,
        output: outcome.output,
        ...(outcome.error ? { error: outcome.error } : {}),
        cost_usd: outcome.delegation.cost_usd,
        turns: outcome.delegation.turns,
        run_id: outcome.delegation.run_id,
      });
    };

    while (true) {
      if (signal.aborted) throw signal.reason;
      await boundary();
      if (turns >= limits.max_turns) {
        throw new RunStop(
          "max_turns",
          [],
          `The run used all ${limits.max_turns} turns without a final answer`,
        );
      }
      turns += 1;
      messages.push(...pending);
      const offeredSpecs = [...offered.values()].map((t) => t.spec);
      const call = emit("model_call", {
        turn: turns,
        model: { provider: provider.provider, name: provider.model },
        append: pending,
        message_count: messages.length,
        tools: offeredSpecs.map((t) => t.name),
        ...(mode ? { playbook: mode.name } : {}),
      });
      pending = [];
      await hooks("before_model_call", call.payload);
      const t0 = performance.now();
      const response = await provider.generate({
        system,
        messages: [...messages],
        tools: offeredSpecs,
        signal,
        ...(ctx.onText ? { onText: (text: string) => ctx.onText!({ turn: turns, text }) } : {}),
      });
      const callCost = costOf(response.usage, price);
      cost += callCost;
      emit("model_response", {
        turn: turns,
        text: response.text,
        tool_calls: response.tool_calls,
        usage: response.usage,
        usage_reported: response.usage_reported,
        cost_usd: callCost,
        latency_ms: Math.round(performance.now() - t0),
        finish_reason: response.finish_reason ?? null,
      });
      for (const w of response.warnings ?? []) {
        emit("warning", { code: "provider_warning", message: w });
      }
      if (!price && !warnedPrice && modelSpec.provider !== "scripted") {
        warnedPrice = true;
        emit("warning", {
          code: "unknown_price",
          message: `No price is known for ${
            modelLabel(modelSpec)
          }; cost counts as 0. Set model.pricing.`,
        });
      }
      await guard({ stage: "model_response", text: response.text });
      pending.push({
        role: "assistant",
        content: response.text,
        ...(response.tool_calls.length ? { tool_calls: response.tool_calls } : {}),
      });
      output = response.text;
      if (response.tool_calls.length === 0) {
        // A final answer. Steering that arrived meanwhile is delivered, and the run goes on.
        if (turns < limits.max_turns && controls.pending() && await boundary()) continue;
        break;
      }
      for (const toolCall of response.tool_calls) {
        toolCalls += 1;
        await guard({
          stage: "tool_call",
          tool: { name: toolCall.name, arguments: toolCall.arguments ?? {} },
        });
        const result = await runToolCall(
          ctx,
          toolCall,
          turns,
          offered,
          limits.tool_timeout_s,
          signal,
          emit,
          ctx.delegator ? delegateFor : undefined,
        );
        await hooks("after_tool_call", result.event.payload);
        pending.push(result.message);
      }
    }

    // A stop with `now` during the last boundary stops the run: the answer is not checked.
    if (signal.aborted) throw signal.reason;
    const verdicts = [];
    for (const v of validators) {
      const verdict = await v.validate(output);
      emit("verify", {
        name: v.name,
        kind: v.kind,
        ok: verdict.ok,
        ...(verdict.reason ? { reason: verdict.reason } : {}),
      });
      verdicts.push({ validator: v, verdict });
    }
    const failed = verdicts.filter((x) => !x.verdict.ok);
    if (failed.length) {
      const first = failed[0]!.validator;
      throw new RunStop(
        "verify_failed",
        first.name === first.kind ? [first.kind] : [first.kind, first.name],
        failed.map((f) => `${f.validator.name}: ${f.verdict.reason}`).join("; "),
      );
    }
  } catch (err) {
    ({ status, reason, message } = classify(err, ctx.signal, timeoutSignal, limits.timeout_s));
    if (status === "guardrail_halt") output = "";
    const by = controls.stoppedNow();
    if (by !== undefined && reason[0] === STOPPED_REASON && !(err instanceof RunStop)) {
      emit("run_stopped", { turn: turns, by, now: true });
    }
  }
  controls.close();
  const ended = new Date();
  const result: RunResult = {
    run_id: ctx.run_id,
    harness_id: spec.id,
    status,
    output,
    cost_usd: Math.round(cost * 1e9) / 1e9,
    turns,
    started_at: ctx.started.toISOString(),
    ended_at: ended.toISOString(),
    duration_ms: ended.getTime() - ctx.started.getTime(),
    spec_version: loaded.version,
    ...(status === "success" ? {} : { error: { reason: reason.join(":") || status, message } }),
    failure_signature: failureSignature(status, reason),
    parent_run_id: ctx.parentRunId,
    ...(delegations.length
      ? { delegations, delegated_cost_usd: Math.round(delegatedCost * 1e9) / 1e9 }
      : {}),
  };
  try {
    if (journal.count() === 0) {
      emit("run_started", {
        run_id: ctx.run_id,
        harness_id: spec.id,
        spec_version: loaded.version,
        input: ctx.inputText,
      });
    }
    await hooks("run_end", { ...result });
    emit("run_finished", { ...result });
  } finally {
    runLimit.clear();
    runSignal.dispose();
    // The flush to disk starts now and runs alongside the end of the run; whoever reports the run as
    // finished waits for it (`launchRun`), so no answer goes out before the journal is durable.
    journal.close().catch(() => {});
    await sandboxes.close();
    await mcp?.close();
  }
  return result;
}

async function runToolCall(
  ctx: LoopContext,
  call: ToolCall,
  turn: number,
  tools: Map<string, Tool>,
  toolTimeoutS: number,
  signal: AbortSignal,
  emit: Emit,
  delegate?: (task: string, peer?: string) => Promise<string>,
): Promise<{ message: Message; event: JournalEvent }> {
  const tool = tools.get(call.name);
  const origin = tool?.source === "mcp" ? { source: "mcp", server: tool.server } : {};
  emit("tool_call", { turn, id: call.id, name: call.name, arguments: call.arguments, ...origin });
  const t0 = performance.now();
  let content: string;
  let logs: string[] | undefined;
  let error: { code: string; message: string } | undefined;
  try {
    if (!tool) {
      throw new ToolError(
        "unknown_tool",
        `No tool named ${JSON.stringify(call.name)}; tools: ${
          [...tools.keys()].join(", ") || "none"
        }`,
      );
    }
    // Code tools enforce their own limit (they kill their sandbox); this outer limit is a backstop.
    const out = await withTimeout(
      tool.run(call.arguments ?? {}, {
        harnessDir: ctx.loaded.dir,
        traceDirs: ctx.traceDirs,
        spec: ctx.loaded.spec,
        runId: ctx.run_id,
        signal,
        ...(delegate ? { delegate } : {}),
        switchPlaybook: (name) => {
          ctx.controls.switchPlaybook(name, "model");
          return `Switching to the ${name} mode at the end of this turn, if its gates allow it.`;
        },
      }),
      (tool.timeout_s ?? toolTimeoutS) * 1000 + (tool.source === "code" ? 5000 : 0),
      signal,
    );
    content = typeof out === "string" ? out : out.content;
    logs = typeof out === "string" ? undefined : out.logs;
  } catch (err) {
    if (signal.aborted) throw signal.reason;
    error = err instanceof ToolError
      ? { code: err.code, message: err.message }
      : { code: "failed", message: (err as Error)?.message ?? String(err) };
    logs = (err as { logs?: string[] }).logs;
    content = `Error (${error.code}): ${error.message}`;
  }
  const event = emit("tool_result", {
    turn,
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

function classify(
  err: unknown,
  external: AbortSignal | undefined,
  timeout: AbortSignal,
  timeoutS: number,
): { status: RunStatus; reason: string[]; message: string } {
  if (err instanceof RunStop) {
    return { status: err.status, reason: err.reason, message: err.message };
  }
  if (err instanceof McpServerError) {
    return { status: "error", reason: ["mcp", err.server], message: err.message };
  }
  if (external?.aborted && !timeout.aborted) {
    return { status: "error", reason: [STOPPED_REASON], message: "The run was stopped" };
  }
  if (timeout.aborted) {
    return {
      status: "error",
      reason: ["timeout"],
      message: `The run did not finish within ${timeoutS} s (limits.timeout_s)`,
    };
  }
  if (err instanceof ProviderError) {
    return { status: "error", reason: ["provider", err.code], message: err.message };
  }
  console.error("internal error in a run:", err);
  return {
    status: "error",
    reason: ["internal"],
    message: "The run failed unexpectedly; the details were logged on stderr",
  };
}
