/**
 * Playbooks (modes) at run time: the default playbook is active from the start; the active one's
 * instructions join the system prompt and its `tools` narrow what the model is offered (the
 * `switch_playbook` tool stays, so a mode can always be left); its `model`, when given, is used. A
 * switch passes the current mode's `on_exit` gate and then the new mode's `on_enter` gate (code refs
 * answering `{allow, reason?}`), and the model is told of it in a user-role note.
 *
 * @module
 */

import { abortable } from "../sleep.ts";
import type { HarnessSpec } from "../harness_spec/schema.ts";
import type { SandboxPool } from "../tools/sandbox.ts";
import type { Tool } from "../tools/tool.ts";

/** A playbook of the spec. */
export type Playbook = NonNullable<HarnessSpec["playbooks"]>[number];

/** The tool a model switches modes with; never narrowed away. */
export const SWITCH_PLAYBOOK = "switch_playbook";

/**
 * The playbook active when a run starts: the one marked `default: true`, else none.
 *
 * @param spec The spec snapshot.
 * @returns The playbook, or undefined.
 */
export function defaultPlaybook(spec: HarnessSpec): Playbook | undefined {
  return spec.playbooks?.find((p) => p.default === true);
}

/**
 * The system prompt in a mode: the harness's prompt, then the mode's instructions.
 *
 * @example
 * ```ts
 * modeSystem("Be brief.", { name: "research", instructions: "Cite sources." });
 * // "Be brief.\n\n## Mode: research\nCite sources."
 * ```
 * @param base The harness's system prompt.
 * @param mode The active playbook.
 * @returns The system prompt.
 */
export function modeSystem(base: string, mode: Playbook | undefined): string {
  if (!mode?.instructions?.trim()) return base;
  const section = `## Mode: ${mode.name}\n${mode.instructions.trim()}`;
  return base ? `${base}\n\n${section}` : section;
}

/**
 * The tools offered in a mode: all of them without a mode or without a `tools` list, else those it
 * names (and `switch_playbook`).
 *
 * @param all Every tool of the run.
 * @param mode The active playbook.
 * @returns The offered tools, by name.
 */
export function modeTools(all: Map<string, Tool>, mode: Playbook | undefined): Map<string, Tool> {
  if (!mode?.tools) return all;
  const named = new Set([...mode.tools, SWITCH_PLAYBOOK]);
  return new Map([...all].filter(([name]) => named.has(name)));
}

/**
 * The note the model reads after a switch.
 *
 * @param from The mode left (or undefined).
 * @param to The mode entered.
 * @returns The note.
 */
export function modeNote(from: Playbook | undefined, to: Playbook): string {
  const head = `Mode changed from ${from?.name ?? "none"} to ${to.name}.`;
  return to.instructions?.trim() ? `${head}\n\n${to.instructions.trim()}` : head;
}

/** A gate's answer. */
export interface GateVerdict {
  allow: boolean;
  reason?: string;
}

/**
 * Calls a playbook gate in the sandbox. A gate that fails, times out or answers anything but
 * `{allow: boolean}` refuses, with the reason said. The run's signal is no answer: a stop with `now`
 * (or the run's time limit) while the gate runs rejects with the signal's reason, so the run stops
 * there; the gate's code is stopped with the run's sandboxes.
 *
 * @param sandboxes Where code runs.
 * @param ref The gate's code ref.
 * @param event What the gate is told: `{run_id, from, to, turn, gate}`.
 * @param timeoutMs Its time limit.
 * @param signal The run's abort signal.
 * @returns The verdict.
 * @throws The signal's reason when the run is stopped while the gate runs.
 */
export async function callGate(
  sandboxes: SandboxPool,
  ref: string,
  event: Record<string, unknown>,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<GateVerdict> {
  let value: unknown;
  try {
    ({ value } = await abortable(
      sandboxes.for(undefined).call(ref, event, { gate: event.gate }, timeoutMs),
      signal,
    ));
  } catch (err) {
    if (signal.aborted) throw signal.reason;
    return { allow: false, reason: `The gate failed: ${(err as Error).message}` };
  }
  const v = value as { allow?: unknown; reason?: unknown } | null | undefined;
  if (!v || typeof v !== "object" || typeof v.allow !== "boolean") {
    return {
      allow: false,
      reason: `The gate answered ${
        JSON.stringify(value) ?? "nothing"
      }, not {allow: boolean, reason?: string}`,
    };
  }
  return {
    allow: v.allow,
    ...(typeof v.reason === "string" && v.reason ? { reason: v.reason } : {}),
  };
}
