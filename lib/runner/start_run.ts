/**
 * `startRun`: the agent loop. The run id is allocated first, the spec snapshot is loaded once, and the
 * run is journalled (hash-chained) and indexed in the hive. One turn is one model call plus the tool
 * calls it asked for; controls are drained only at turn boundaries. Every run ends with exactly one of
 * the five statuses.
 *
 * @module
 */

import { badInput } from "../errors.ts";
import { resolveSafePath } from "../fs/safe_path.ts";
import { upsertHarness } from "../hive/harnesses.ts";
import { openHive } from "../hive/open.ts";
import { finishRun, insertRun } from "../hive/runs.ts";
import { newRunId } from "../ids.ts";
import type { JournalEvent } from "../journal/event.ts";
import { createJournal, type JournalWriter } from "../journal/writer.ts";
import { costOf, priceOf } from "../models/pricing.ts";
import { createProvider, type ProviderContext } from "../models/registry.ts";
import { type Message, type ModelProvider, ProviderError, type ToolCall } from "../models/types.ts";
import { traceDir as traceDirOf } from "../paths.ts";
import { type LoadedSpec, loadSpec } from "../spec/load.ts";
import type { ModelSpec } from "../spec/schema.ts";
import { ToolError } from "../tools/tool.ts";
import { buildToolset } from "../tools/toolset.ts";
import { type ControlQueue, createControlQueue } from "./controls.ts";
import { createEventStream, type EventStream } from "./event_stream.ts";
import { failureSignature } from "./failure_signature.ts";
import { composeSystemPrompt } from "./prompt.ts";
import type { RunResult, RunStatus } from "./types.ts";

/** What a run is asked: literal `input`, a file (`input_file`), or both. */
export interface RunInput {
  input?: string;
  input_file?: string;
}

/** Options of {@link startRun}. */
export interface RunOptions {
  /** A pre-allocated run id. */
  runId?: string;
  /** The run this one was delegated or forked from. */
  parentRunId?: string;
  /** Aborting it stops the run (status `error`, reason `stopped`). */
  signal?: AbortSignal;
  /** An already-loaded spec snapshot (otherwise it is loaded now). */
  spec?: LoadedSpec;
  /** Replaces provider creation (tests, embedders). */
  createProvider?: (model: ModelSpec, ctx: ProviderContext) => ModelProvider;
}

/** A started run. */
export interface RunHandle {
  run_id: string;
  harness_id: string;
  spec_version: string;
  /** The journal file. */
  trace_path: string;
  /** Every journal event as it is written, replayable from the first. */
  events: EventStream<JournalEvent>;
  /** The result; never rejects. */
  result: Promise<RunResult>;
  /** Controls applied at the next turn boundary. */
  controls: ControlQueue;
}

/** Limits applied when the spec sets none. */
export const DEFAULT_LIMITS = { max_turns: 10, timeout_s: 600, tool_timeout_s: 60 } as const;

const MAX_INPUT_FILE_BYTES = 1024 * 1024;

/**
 * Builds the run's input text. `input` is always literal; `input_file` goes through the sensitive-path
 * check and its content becomes (part of) the input.
 */
async function resolveInput(
  loaded: LoadedSpec,
  input: RunInput,
  traceDir: string,
): Promise<{ text: string; input_file?: string }> {
  const hasInput = input.input !== undefined && input.input !== null;
  const hasFile = input.input_file !== undefined && input.input_file !== null;
  if (!hasInput && !hasFile) {
    throw badInput("Missing input: give `input` (text) or `input_file` (a path)");
  }
  if (hasInput && typeof input.input !== "string") throw badInput("`input` must be a string");
  if (hasFile && typeof input.input_file !== "string") {
    throw badInput("`input_file` must be a string");
  }
  if (!hasFile) return { text: input.input as string };
  const safe = await resolveSafePath(loaded.dir, input.input_file!, { traceDir });
  let bytes: Uint8Array;
  try {
    const info = await Deno.stat(safe.absolute);
    if (!info.isFile) {
      throw badInput(`input_file ${JSON.stringify(input.input_file)} is not a file`);
    }
    if (info.size > MAX_INPUT_FILE_BYTES) {
      throw badInput(
        `input_file ${JSON.stringify(input.input_file)} is ${info.size} bytes; the limit is 1 MiB`,
      );
    }
    bytes = await Deno.readFile(safe.absolute);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) {
      throw badInput(`input_file ${JSON.stringify(input.input_file)} does not exist`);
    }
    throw err;
  }
  const content = new TextDecoder().decode(bytes);
  const text = hasInput ? `${input.input}\n\n[file: ${safe.relative}]\n${content}` : content;
  return { text, input_file: safe.relative };
}

/**
 * Starts a run and returns at once with its handle; the loop goes on in the background. Bad input
 * (no input, an unsafe `input_file`, an invalid spec) is thrown before anything is recorded.
 *
 * @example
 * ```ts
 * const run = await startRun("./harnesses/hello", { input: "Hi" });
 * for await (const e of run.events) console.log(e.seq, e.type);
 * const result = await run.result;
 * ```
 * @param harnessDir The harness folder.
 * @param input `input` and/or `input_file`.
 * @param options Pre-allocated id, parent, abort signal, spec snapshot.
 * @returns The run handle.
 */
export async function startRun(
  harnessDir: string,
  input: RunInput,
  options: RunOptions = {},
): Promise<RunHandle> {
  const run_id = options.runId ?? newRunId();
  const loaded = options.spec ?? await loadSpec(harnessDir);
  const spec = loaded.spec;
  const traceDir = traceDirOf(loaded.dir, spec.logging?.trace_dir);
  const { text, input_file } = await resolveInput(loaded, input, traceDir);
  const trace_path = `${traceDir}/${run_id}.jsonl`;
  const started = new Date();
  const journal = createJournal(trace_path, spec.logging?.redact);
  const db = openHive();
  upsertHarness(db, { id: spec.id, root_path: loaded.dir, name: spec.name ?? spec.id });
  insertRun(db, {
    run_id,
    harness_id: spec.id,
    input: text,
    started_at: started.toISOString(),
    spec_version: loaded.version,
    trace_path,
    parent_run_id: options.parentRunId ?? null,
  });
  const events = createEventStream<JournalEvent>();
  const controls = createControlQueue();
  const ctx: LoopContext = {
    run_id,
    loaded,
    traceDir,
    inputText: text,
    input_file,
    started,
    journal,
    events,
    controls,
    signal: options.signal,
    parentRunId: options.parentRunId ?? null,
    makeProvider: options.createProvider ?? createProvider,
  };
  const result = runLoop(ctx).then((r) => {
    try {
      finishRun(openHive(), r, { head_hash: journal.head(), events: journal.count() });
    } catch (err) {
      console.error(
        `warning: could not record the end of ${run_id} in the hive: ${(err as Error).message}`,
      );
    }
    events.close();
    return r;
  });
  return {
    run_id,
    harness_id: spec.id,
    spec_version: loaded.version,
    trace_path,
    events,
    result,
    controls,
  };
}

interface LoopContext {
  run_id: string;
  loaded: LoadedSpec;
  traceDir: string;
  inputText: string;
  input_file: string | undefined;
  started: Date;
  journal: JournalWriter;
  events: EventStream<JournalEvent>;
  controls: ControlQueue;
  signal: AbortSignal | undefined;
  parentRunId: string | null;
  makeProvider: (model: ModelSpec, ctx: ProviderContext) => ModelProvider;
}

/** Why a run ended early. */
class RunStop extends Error {
  constructor(readonly status: RunStatus, readonly reason: string[], message: string) {
    super(message);
  }
}

async function withTimeout<T>(promise: Promise<T>, ms: number, signal: AbortSignal): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const stop = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new ToolError("timeout", `The tool did not finish within ${ms / 1000} s`)),
      ms,
    );
    onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([promise, stop]);
  } finally {
    clearTimeout(timer);
    signal.removeEventListener("abort", onAbort!);
  }
}

async function runLoop(ctx: LoopContext): Promise<RunResult> {
  const { loaded, journal } = ctx;
  const spec = loaded.spec;
  const emit = (type: string, payload: Record<string, unknown>) =>
    ctx.events.push(journal.append(type, payload));
  const limits = { ...DEFAULT_LIMITS, ...spec.limits };
  const timeoutSignal = AbortSignal.timeout(limits.timeout_s * 1000);
  const signal = ctx.signal ? AbortSignal.any([ctx.signal, timeoutSignal]) : timeoutSignal;
  const system = composeSystemPrompt(spec);
  const toolset = buildToolset(spec);
  const toolSpecs = [...toolset.tools.values()].map((t) => t.spec);
  const price = priceOf(spec.model);
  let turns = 0;
  let cost = 0;
  let output = "";
  let status: RunStatus = "success";
  let reason: string[] = [];
  let message = "";
  const messages: Message[] = [];
  let pending: Message[] = [{ role: "user", content: ctx.inputText }];
  let warnedPrice = false;

  emit("run_started", {
    run_id: ctx.run_id,
    harness_id: spec.id,
    spec_version: loaded.version,
    input: ctx.inputText,
    ...(ctx.input_file ? { input_file: ctx.input_file } : {}),
    parent_run_id: ctx.parentRunId,
    model: { provider: spec.model.provider, name: spec.model.name ?? null },
    limits,
    system,
    tools: toolSpecs,
  });
  for (const p of toolset.problems) {
    emit("warning", { code: "tool_unavailable", tool: p.name, message: p.message });
  }

  try {
    const provider = ctx.makeProvider(spec.model, { harnessDir: loaded.dir });
    while (true) {
      ctx.controls.drain();
      if (signal.aborted) throw signal.reason;
      if (turns >= limits.max_turns) {
        throw new RunStop(
          "max_turns",
          [],
          `The run used all ${limits.max_turns} turns without a final answer`,
        );
      }
      turns += 1;
      messages.push(...pending);
      emit("model_call", {
        turn: turns,
        model: { provider: provider.provider, name: provider.model },
        append: pending,
        message_count: messages.length,
        tools: toolSpecs.map((t) => t.name),
      });
      pending = [];
      const t0 = performance.now();
      const response = await provider.generate({
        system,
        messages: [...messages],
        tools: toolSpecs,
        input: ctx.inputText,
        signal,
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
      if (!price && !warnedPrice && spec.model.provider !== "scripted") {
        warnedPrice = true;
        emit("warning", {
          code: "unknown_price",
          message:
            `No price is known for ${spec.model.provider}:${spec.model.name}; cost counts as 0. Set model.pricing.`,
        });
      }
      const assistant: Message = {
        role: "assistant",
        content: response.text,
        ...(response.tool_calls.length ? { tool_calls: response.tool_calls } : {}),
      };
      pending.push(assistant);
      output = response.text;
      if (response.tool_calls.length === 0) break;
      for (const call of response.tool_calls) {
        pending.push(
          await runToolCall(ctx, call, turns, toolset.tools, limits.tool_timeout_s, signal, emit),
        );
      }
    }
  } catch (err) {
    ({ status, reason, message } = classify(err, ctx.signal, timeoutSignal, limits.timeout_s));
  }
  const ended = new Date();
  const failure_signature = failureSignature(status, reason);
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
    failure_signature,
    parent_run_id: ctx.parentRunId,
  };
  try {
    emit("run_finished", { ...result });
  } finally {
    journal.close();
  }
  return result;
}

async function runToolCall(
  ctx: LoopContext,
  call: ToolCall,
  turn: number,
  tools: ReturnType<typeof buildToolset>["tools"],
  toolTimeoutS: number,
  signal: AbortSignal,
  emit: (type: string, payload: Record<string, unknown>) => void,
): Promise<Message> {
  emit("tool_call", { turn, id: call.id, name: call.name, arguments: call.arguments });
  const t0 = performance.now();
  const tool = tools.get(call.name);
  let content: string;
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
    content = await withTimeout(
      tool.run(call.arguments ?? {}, {
        harnessDir: ctx.loaded.dir,
        traceDir: ctx.traceDir,
        spec: ctx.loaded.spec,
        runId: ctx.run_id,
        signal,
      }),
      toolTimeoutS * 1000,
      signal,
    );
  } catch (err) {
    if (signal.aborted) throw signal.reason;
    error = err instanceof ToolError
      ? { code: err.code, message: err.message }
      : { code: "failed", message: (err as Error)?.message ?? String(err) };
    content = `Error (${error.code}): ${error.message}`;
  }
  emit("tool_result", {
    turn,
    id: call.id,
    name: call.name,
    ok: !error,
    ...(error ? { error } : { content }),
    duration_ms: Math.round(performance.now() - t0),
  });
  return {
    role: "tool",
    tool_call_id: call.id,
    name: call.name,
    content,
    ...(error ? { is_error: true } : {}),
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
  if (external?.aborted && !timeout.aborted) {
    return { status: "error", reason: ["stopped"], message: "The run was stopped" };
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
