/**
 * A run's limits: the spec's `limits`, and the defaults where it sets none, so no run can go on
 * forever (docs/decisions.md, Runs).
 *
 * @module
 */

import type { HarnessSpec } from "../harness_spec/schema.ts";

/** Limits applied when the spec sets none. */
export const DEFAULT_LIMITS = { max_turns: 10, timeout_s: 600, tool_timeout_s: 60 } as const;

/** The limits a run works within. */
export interface RunLimits {
  max_turns: number;
  timeout_s: number;
  tool_timeout_s: number;
  /** The run's own cost limit, when the spec sets one. */
  max_cost_usd?: number;
}

/**
 * The limits of a run of this spec: the spec's, the defaults for the rest.
 *
 * @example
 * ```ts
 * import { loadSpec } from "../harness_spec/load.ts";
 *
 * const { spec } = await loadSpec("./harnesses/hello");
 * runLimits(spec).timeout_s; // the spec's, or 600
 * ```
 * @param spec The spec snapshot.
 * @returns The limits.
 */
export function runLimits(spec: HarnessSpec): RunLimits {
  return { ...DEFAULT_LIMITS, ...spec.limits };
}
