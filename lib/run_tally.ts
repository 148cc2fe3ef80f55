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

/** A journal event as far as {@link tallyEvent} reads it. */
export type TalliedEvent = { type: string; payload: Record<string, unknown> };

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
export function runTally(events: readonly TalliedEvent[]): RunTally {
  const t = events.reduce(tallyEvent, { cost_usd: 0, turns: 0 });
  return { cost_usd: Math.round(t.cost_usd * 1e9) / 1e9, turns: t.turns };
}

/**
 * Adds one more event to a tally (for events that arrive one by one); {@link runTally} is this over
 * a list, rounded to the nano-dollar as the run rounds its cost.
 *
 * @param tally The tally of the events before.
 * @param e The next event.
 * @returns The new tally.
 */
export function tallyEvent(tally: RunTally, e: TalliedEvent): RunTally {
  const p = e.payload;
  if (e.type === "model_response" || e.type === "delegation_finished") {
    return { ...tally, cost_usd: tally.cost_usd + numberOr0(p.cost_usd) };
  }
  const call = e.type === "model_call"
    ? p
    : e.type === "replayed" && p.original_type === "model_call"
    ? p.payload as Record<string, unknown> | undefined
    : undefined;
  return call ? { ...tally, turns: Math.max(tally.turns, numberOr0(call.turn)) } : tally;
}

function numberOr0(x: unknown): number {
  return typeof x === "number" && Number.isFinite(x) ? x : 0;
}

/** A run's tokens: what its model calls read and wrote, as their providers reported (or estimated). */
export interface RunTokens {
  input_tokens: number;
  output_tokens: number;
}

/**
 * Sums the `usage` of a run's own `model_response` events (a fork's replayed calls were its parent's,
 * and a hand-off's calls are its child run's: neither counts, as neither counts in its cost).
 *
 * @example
 * ```ts
 * runTokens([
 *   { type: "model_response", payload: { usage: { input_tokens: 12, output_tokens: 3 } } },
 *   { type: "model_response", payload: { usage: { input_tokens: 20, output_tokens: 5 } } },
 * ]); // { input_tokens: 32, output_tokens: 8 }
 * ```
 * @param events The run's journal events (any prefix).
 * @returns The tokens so far.
 */
export function runTokens(events: readonly TalliedEvent[]): RunTokens {
  let input_tokens = 0, output_tokens = 0;
  for (const e of events) {
    if (e.type !== "model_response") continue;
    const usage = e.payload.usage as Record<string, unknown> | undefined;
    input_tokens += numberOr0(usage?.input_tokens);
    output_tokens += numberOr0(usage?.output_tokens);
  }
  return { input_tokens, output_tokens };
}
