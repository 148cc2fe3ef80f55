/**
 * One turn: one model call (`model_call`, then `model_response` with its usage and cost) and the tool
 * calls it asked for, each through the guardrails first. A turn without tool calls is a final answer.
 *
 * @module
 */

import { costOf } from "../models/pricing.ts";
import type { ModelResponse, ToolCall } from "../models/types.ts";
import { callAfterDecision } from "./approval_call.ts";
import { modelLabel } from "./control_queue.ts";
import { guard } from "./guard.ts";
import { providerOf } from "./model_in_use.ts";
import type { RunSession } from "./run_session.ts";
import { runToolCall } from "./tool_call.ts";

/** Calls the model with the conversation so far plus what this turn adds, and journals both. */
async function callModel(session: RunSession): Promise<ModelResponse> {
  const provider = providerOf(session);
  session.turns += 1;
  const turn = session.turns;
  session.messages.push(...session.pending);
  const offered = [...session.offered.values()].map((t) => t.spec);
  const call = session.emit("model_call", {
    turn,
    model: { provider: provider.provider, name: provider.model },
    append: session.pending,
    message_count: session.messages.length,
    tools: offered.map((t) => t.name),
    ...(session.mode ? { playbook: session.mode.name } : {}),
  });
  session.pending = [];
  await session.hooks("before_model_call", call.payload);
  const onText = session.run.prepared.options.onText;
  const t0 = performance.now();
  const response = await provider.generate({
    system: session.system,
    messages: [...session.messages],
    tools: offered,
    signal: session.signal,
    ...(onText ? { onText: (text: string) => onText({ turn, text }) } : {}),
  });
  const callCost = costOf(response.usage, session.model.price);
  session.cost += callCost;
  session.emit("model_response", {
    turn,
    text: response.text,
    tool_calls: response.tool_calls,
    usage: response.usage,
    usage_reported: response.usage_reported,
    cost_usd: callCost,
    latency_ms: Math.round(performance.now() - t0),
    finish_reason: response.finish_reason ?? null,
  });
  for (const w of response.warnings ?? []) {
    session.emit("warning", { code: "provider_warning", message: w });
  }
  const model = session.model;
  if (!model.price && !model.warnedPrice && model.spec.provider !== "scripted") {
    model.warnedPrice = true;
    session.emit("warning", {
      code: "unknown_price",
      message: `No price is known for ${
        modelLabel(model.spec)
      }; cost counts as 0. Set model.pricing.`,
    });
  }
  return response;
}

/**
 * Takes one turn: the model call, the guardrails on its answer, and the tool calls it asked for.
 *
 * @example
 * ```ts
 * import type { RunSession } from "./run_session.ts";
 *
 * declare const session: RunSession;
 * if (await takeTurn(session)) console.log("final answer:", session.output);
 * ```
 * @param session The run.
 * @returns Whether the answer is final (no tool calls).
 * @throws `RunStop` when a guardrail trips; a provider error; the run's signal's reason.
 */
export async function takeTurn(session: RunSession): Promise<boolean> {
  const response = await callModel(session);
  await guard(session, { stage: "model_response", text: response.text });
  session.pending.push({
    role: "assistant",
    content: response.text,
    ...(response.tool_calls.length ? { tool_calls: response.tool_calls } : {}),
  });
  session.output = response.text;
  if (response.tool_calls.length === 0) return true;
  await runToolCalls(session, response.tool_calls);
  return false;
}

/**
 * Runs a turn's tool calls in order, each through the guardrails; the calls that wait for a person's
 * decision (`approvals.tools`) come after the others.
 *
 * @param session The run.
 * @param calls The calls the model asked for (or those left of an interrupted turn).
 */
export async function runToolCalls(session: RunSession, calls: readonly ToolCall[]): Promise<void> {
  const gate = session.run.prepared.options.approvals;
  const waits = (call: ToolCall) => gate?.needs(call.name) ?? false;
  for (const call of [...calls.filter((c) => !waits(c)), ...calls.filter(waits)]) {
    session.toolCalls += 1;
    await guard(session, {
      stage: "tool_call",
      tool: { name: call.name, arguments: call.arguments ?? {} },
    });
    const result = gate && waits(call)
      ? await callAfterDecision(session, gate, call)
      : await runToolCall(session, call);
    await session.hooks("after_tool_call", result.event.payload);
    session.pending.push(result.message);
  }
}
