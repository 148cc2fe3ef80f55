/**
 * The runs going on in this process, by run id, so servers can stream a live run's events, and later
 * stop or steer it. A run leaves the registry when it ends.
 *
 * @module
 */

import type { RunHandle } from "./run_handle.ts";

const active = new Map<string, RunHandle>();

/**
 * Registers a started run until its result settles.
 *
 * @param handle The run.
 */
export function registerActiveRun(handle: RunHandle): void {
  active.set(handle.run_id, handle);
  handle.result.finally(() => active.delete(handle.run_id));
}

/**
 * A live run of this process.
 *
 * @param runId The run id.
 * @returns Its handle, or undefined when it is not running here.
 */
export function activeRun(runId: string): RunHandle | undefined {
  return active.get(runId);
}

/**
 * Every live run of this process.
 *
 * @returns The handles.
 */
export function activeRuns(): RunHandle[] {
  return [...active.values()];
}
