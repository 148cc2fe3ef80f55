/**
 * One run's session: what the phases of the loop share — the launched run, its limits and signal, its
 * journal, its sandboxes, the conversation so far, the model and mode in use, and the running
 * figures (turns, cost, tool calls, output, hand-offs). Each phase is a function of the session:
 * equip (`equip.ts`), a turn boundary (`turn_boundary.ts`), one turn (`turn.ts`, `tool_call.ts`), and
 * the end (`verify_output.ts`, `end_run.ts`); `run_loop.ts` puts them in order.
 *
 * @module
 */

import { deadline } from "../deadline.ts";
import type { JournalEvent } from "../journal/event.ts";
import type { JournalWriter } from "../journal/writer.ts";
import { linkSignals } from "../linked_signal.ts";
import type { Message } from "../models/types.ts";
import type { Delegation, RunStatus } from "../run_types.ts";
import type { LoadedSpec } from "../harness_spec/load.ts";
import type { HarnessSpec } from "../harness_spec/schema.ts";
import type { McpTools } from "../tools/mcp.ts";
import { createSandboxPool, type SandboxPool } from "../tools/sandbox.ts";
import type { Tool } from "../tools/tool.ts";
import type { RunControls } from "./control_queue.ts";
import type { EventStream } from "./event_stream.ts";
import type { Guardrail } from "./guardrails.ts";
import { buildHooks, type HookRunner } from "./hooks.ts";
import { type RunLimits, runLimits } from "./limits.ts";
import { createModelInUse, type ModelInUse } from "./model_in_use.ts";
import { defaultPlaybook, modeSystem, type Playbook } from "./playbooks.ts";
import type { PreparedRun, RunOptions } from "./prepare_run.ts";
import { composeSystemPrompt, withCallerInstructions } from "./prompt.ts";
import type { Validator } from "./validators.ts";

/** A prepared run once it is recorded: its id, journal, event stream, controls and start time. */
export interface LaunchedRun {
  prepared: PreparedRun;
  run_id: string;
  journal: JournalWriter;
  events: EventStream<JournalEvent>;
  controls: RunControls;
  started: Date;
  /** Aborted by a stop (`now`), the service shutting down, or a parent's stop. */
  signal: AbortSignal;
}

/** Journals one event and passes it to the run's stream. */
export type Emit = (type: string, payload: Record<string, unknown>) => JournalEvent;

/** What the loop works with, once equipped (`equip.ts`). */
export interface Equipment {
  /** Every tool of the run, by name. */
  tools: Map<string, Tool>;
  guardrails: Guardrail[];
  validators: Validator[];
  /** MCP servers the run started (closed when it ends). */
  mcp?: McpTools;
}

/** The state the phases of a run share. */
export interface RunSession {
  readonly run: LaunchedRun;
  readonly loaded: LoadedSpec;
  readonly spec: HarnessSpec;
  readonly limits: RunLimits;
  /** The run's signal and its time limit together: what every phase waits on. */
  readonly signal: AbortSignal;
  /** Aborted when `limits.timeout_s` has passed. */
  readonly timeout: AbortSignal;
  readonly sandboxes: SandboxPool;
  readonly hooks: HookRunner;
  readonly emit: Emit;
  /** Set by `equip.ts`. */
  equipment: Equipment;
  /** The model in use (changed at turn boundaries). */
  model: ModelInUse;
  /** The active playbook, and the tools it offers. */
  mode: Playbook | undefined;
  offered: Map<string, Tool>;
  /**
   * The caller's instructions: the run's own, or those of the run it takes up (a fork's parent, a
   * run resumed after an approval), read from that run's `run_started`.
   */
  readonly callerInstructions: string | undefined;
  /** The harness's system prompt (with the caller's instructions), and the prompt in the active mode. */
  readonly baseSystem: string;
  system: string;
  /** Every message the model has been sent, and those the next call adds. */
  messages: Message[];
  pending: Message[];
  turns: number;
  cost: number;
  toolCalls: number;
  output: string;
  delegations: Delegation[];
  delegatedCost: number;
  /** Releases the time limit and the linked signals. */
  release(): void;
}

/** Why a run ended before a normal final answer. */
export class RunStop extends Error {
  /**
   * @param status The run's status.
   * @param reason The parts of its reason (`["stopped"]`, `[guardrail name]`).
   * @param message What happened, for a person.
   */
  constructor(readonly status: RunStatus, readonly reason: string[], message: string) {
    super(message);
  }
}

/** A run's caller instructions: its own, or those the run it takes up was given. */
function callerInstructionsOf(options: RunOptions): string | undefined {
  const own = options.callerInstructions?.trim();
  if (own) return own;
  const parent = options.replay?.events ?? options.resumed?.events ?? [];
  const started = parent.find((e) => e.type === "run_started")?.payload.caller_instructions;
  return typeof started === "string" && started.trim() ? started.trim() : undefined;
}

/**
 * Opens a launched run's session: limits and their time limit, the sandboxes, the hooks, the default
 * mode, the model. Nothing is journalled yet.
 *
 * @example
 * ```ts
 * import { runLoop } from "./run_loop.ts";
 *
 * declare const run: LaunchedRun;
 * const session = openSession(run);
 * session.limits.max_turns; // the spec's, or 10
 * await runLoop(run); // what the loop does with it
 * ```
 * @param run The launched run.
 * @returns Its session.
 */
export function openSession(run: LaunchedRun): RunSession {
  const { loaded } = run.prepared;
  const spec = loaded.spec;
  const limits = runLimits(spec);
  const limit = deadline(limits.timeout_s * 1000);
  const linked = linkSignals(run.signal, limit.signal);
  const emit: Emit = (type, payload) => {
    const event = run.journal.append(type, payload);
    run.events.push(event);
    return event;
  };
  const sandboxes = createSandboxPool(loaded.dir, run.prepared.traceDirs);
  const mode = defaultPlaybook(spec);
  // A caller's instructions come after the harness's own, and stay through a change of mode.
  const callerInstructions = callerInstructionsOf(run.prepared.options);
  const baseSystem = withCallerInstructions(composeSystemPrompt(spec), callerInstructions);
  const session: RunSession = {
    run,
    loaded,
    spec,
    limits,
    signal: linked.signal,
    timeout: limit.signal,
    sandboxes,
    hooks: buildHooks(spec, sandboxes, limits.tool_timeout_s, emit),
    emit,
    equipment: { tools: new Map(), guardrails: [], validators: [] },
    model: createModelInUse(run, mode?.model ?? spec.model),
    mode,
    offered: new Map(),
    callerInstructions,
    baseSystem,
    system: modeSystem(baseSystem, mode),
    messages: [],
    pending: [],
    turns: 0,
    cost: 0,
    toolCalls: 0,
    output: "",
    delegations: [],
    delegatedCost: 0,
    release() {
      limit.clear();
      linked.dispose();
    },
  };
  run.controls.state.playbook = mode?.name ?? null;
  return session;
}
