/**
 * Trace and span ids derived from a run's id, so a run exported twice is the same trace with the
 * same spans (a backend keeps one copy), and a run's lineage can name spans of other runs without
 * reading their journals: a delegated run links to the hand-off span of its parent by the child's
 * own id, a fork to the model call of its parent it re-entered at.
 *
 * @module
 */

import { sha256Hex } from "../hash.ts";

/** A hex id that is not all zeros (the W3C invalid id), from a digest. */
function nonZero(hex: string): string {
  return /^0+$/.test(hex) ? `${hex.slice(0, -1)}1` : hex;
}

/**
 * The trace id of a run: 32 hex characters, the same on every export.
 *
 * @example
 * ```ts
 * traceIdOf("run_01J9Z8Y7X6W5V4T3S2R1Q0P9N8") === traceIdOf("run_01J9Z8Y7X6W5V4T3S2R1Q0P9N8"); // true
 * ```
 * @param runId The run's id.
 * @returns The trace id.
 */
export function traceIdOf(runId: string): string {
  return nonZero(sha256Hex(`framework.trace\n${runId}`).slice(0, 32));
}

/**
 * The id of one span of a run: 16 hex characters from the run's id and the span's key (`root`,
 * `chat:<seq>`, `tool:<seq>`, `handoff`).
 *
 * @example
 * ```ts
 * spanIdOf("run_01J9Z8Y7X6W5V4T3S2R1Q0P9N8", "root"); // 16 hex characters
 * ```
 * @param runId The run's id.
 * @param key The span's key within the run.
 * @returns The span id.
 */
export function spanIdOf(runId: string, key: string): string {
  return nonZero(sha256Hex(`framework.span\n${runId}\n${key}`).slice(0, 16));
}
