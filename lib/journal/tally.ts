/**
 * A run's cost and turns read from its journal events, as the run counts them: so a run that is still
 * going can show both from the events written so far (the hive's row has them only once it ends).
 *
 * @module
 */

/** What {@link runTally} counts. */
export interface RunTally {
  /** USD of the model calls so far, hand-offs to peers included. */
  cost_usd: number;
  /** Turns begun (a turn begins with its model call). */
  turns: number;
}

/**
 * Tallies journal events in order: each `model_response` adds its `cost_usd` and each
 * `delegation_finished` the child run's; the turns are the highest `turn` of a `model_call` (a
 * resumed fork's replayed calls included, as its run continues their count). The result equals the
 * run's own `cost_usd` and `turns` once its journal is complete.
 *
 * @example
 * ```ts
 * runTally([
 *   { type: "model_call", payload: { turn: 1 } },
 *   { type: "model_response", payload: { turn: 1, cost_usd: 0.02 } },
 * ]); // { cost_usd: 0.02, turns: 1 }
 * ```
 * @param events The events (any prefix of a journal).
 * @returns Cost and turns so far.
 */
export function runTally(
  events: readonly { type: string; payload: Record<string, unknown> }[],
): RunTally {
  let cost = 0;
  let turns = 0;
  for (const e of events) {
    const p = e.payload;
    if (e.type === "model_response" || e.type === "delegation_finished") {
      cost += numberOr0(p.cost_usd);
    } else if (e.type === "model_call") {
      turns = Math.max(turns, numberOr0(p.turn));
    } else if (e.type === "replayed" && p.original_type === "model_call") {
      turns = Math.max(turns, numberOr0((p.payload as Record<string, unknown> | undefined)?.turn));
    }
  }
  return { cost_usd: Math.round(cost * 1e9) / 1e9, turns };
}

function numberOr0(x: unknown): number {
  return typeof x === "number" && Number.isFinite(x) ? x : 0;
}
