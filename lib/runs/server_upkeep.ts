/**
 * What a long-running process (the control plane, the workbench) keeps going while it serves runs,
 * so that no run carries it on the event loop: the hive's checkpointer (lib/sqlite/checkpointer.ts)
 * and spare journal files (lib/journal/spare_files.ts). A one-shot command runs neither.
 *
 * @module
 */

import { startHiveCheckpointer } from "../hive/open.ts";
import { keepSpareJournals } from "../journal/spare_files.ts";

/**
 * Starts a server's upkeep; call it once the server's own setup has succeeded.
 *
 * @example
 * ```ts
 * const stopUpkeep = startServerUpkeep();
 * try {
 *   // … serve …
 * } finally {
 *   await stopUpkeep();
 * }
 * ```
 * @returns Stops it (the thread ends and the spares are removed with the last server's share).
 */
export function startServerUpkeep(): () => Promise<void> {
  const stops = [startHiveCheckpointer(), keepSpareJournals()];
  return async () => {
    await Promise.all(stops.map((stop) => stop()));
  };
}
