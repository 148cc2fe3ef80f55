/**
 * A turn boundary, where no model call and no tool is in flight: the run's queued controls are applied
 * in the order they came, each as one journal event — a steering message is delivered to the model
 * (`steering_delivered`), a model change takes effect (`model_changed`), a mode switch passes its
 * gates (`playbook_changed` or `playbook_refused`), and a stop ends the run (`run_stopped`).
 *
 * @module
 */

import { STOPPED_REASON } from "../run_types.ts";
import { useModel } from "./model_in_use.ts";
import { callGate, modeNote, modeSystem, modeTools } from "./playbooks.ts";
import { type RunSession, RunStop } from "./run_session.ts";

/**
 * Switches the run's mode through the current mode's `on_exit` gate and the new mode's `on_enter`
 * gate. A refused switch keeps the mode; the model is told when it asked itself.
 *
 * @param session The run.
 * @param name The playbook to switch to.
 * @param turn The turn it applies from.
 * @param by Who asked (`model` when the model called `switch_playbook`).
 * @returns Whether the model has something new to read.
 */
async function switchMode(
  session: RunSession,
  name: string,
  turn: number,
  by: string,
): Promise<boolean> {
  const { spec, limits, sandboxes } = session;
  const to = spec.playbooks!.find((p) => p.name === name)!;
  const from = session.mode;
  for (const [gate, ref] of [["on_exit", from?.on_exit], ["on_enter", to.on_enter]] as const) {
    if (!ref) continue;
    const event = { run_id: session.run.run_id, from: from?.name ?? null, to: to.name, turn, gate };
    // A stop with `now` while the gate runs throws here, and the run stops.
    const verdict = await callGate(
      sandboxes,
      ref,
      event,
      limits.tool_timeout_s * 1000,
      session.signal,
    );
    if (verdict.allow) continue;
    const reason = verdict.reason ?? `The ${gate} gate refused`;
    session.emit("playbook_refused", {
      from: from?.name ?? null,
      to: to.name,
      gate,
      reason,
      turn,
      by,
    });
    if (by !== "model") return false;
    session.pending.push({
      role: "user",
      content: `Mode change from ${
        from?.name ?? "none"
      } to ${to.name} was refused (${gate}): ${reason}`,
    });
    return true;
  }
  session.mode = to;
  session.offered = modeTools(session.equipment.tools, to);
  session.run.controls.state.playbook = to.name;
  session.emit("playbook_changed", { from: from?.name ?? null, to: to.name, turn, by });
  const nextSystem = modeSystem(session.baseSystem, to);
  if (nextSystem !== session.system) {
    session.system = nextSystem;
    session.emit("system_changed", { system: nextSystem, turn });
  }
  session.pending.push({ role: "user", content: modeNote(from, to) });
  if (to.model) useModel(session, to.model, turn, `playbook:${to.name}`);
  return true;
}

/**
 * Applies the controls queued since the last boundary, in order, each as one journal event.
 *
 * @example
 * ```ts
 * import type { RunSession } from "./run_session.ts";
 *
 * declare const session: RunSession;
 * session.run.controls.steer("Answer in French");
 * await turnBoundary(session); // true: the model has a steering message to read
 * ```
 * @param session The run.
 * @returns Whether the model has something new to read.
 * @throws `RunStop` (`error`, reason `stopped`) for a queued stop; the run's signal's reason when it
 *   is stopped at once while a gate runs.
 */
export async function turnBoundary(session: RunSession): Promise<boolean> {
  const { controls } = session.run;
  let told = false;
  const turn = session.turns + 1;
  for (const item of controls.take(turn)) {
    if (item.kind === "message") {
      session.pending.push({ role: "user", content: item.message.text });
      session.emit("steering_delivered", {
        message_id: item.message.id,
        text: item.message.text,
        turn,
      });
      told = true;
    } else if (item.kind === "model") {
      useModel(session, item.model, turn, item.by);
    } else if (item.kind === "playbook") {
      told = (await switchMode(session, item.name, turn, item.by)) || told;
    } else {
      session.emit("run_stopped", { turn: session.turns, by: item.by });
      throw new RunStop("error", [STOPPED_REASON], "The run was stopped");
    }
  }
  return told;
}
