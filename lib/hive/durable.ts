/**
 * The hive's durability for the run path: its writes are committed with `synchronous = NORMAL` (the
 * write-ahead log is written at commit, not flushed), and a run is reported only once the log is
 * flushed past its finishing write. The flush is shared by the runs that finish together
 * (`lib/fs/group_flush.ts`): one `fdatasync` of the log serves every commit made before it started.
 * A checkpoint that moved a commit into the database file flushed that file first, so the commit is
 * durable either way.
 *
 * @module
 */

import { flushPath } from "../fs/group_flush.ts";
import { hivePath } from "../paths.ts";

/**
 * Resolves once every hive write this process committed before the call is durable.
 *
 * @example
 * ```ts
 * // after a run's finishing write (finishRun), before the run is reported:
 * await hiveDurable();
 * ```
 * @param path The hive's file (default `<home>/hive.db`).
 */
export async function hiveDurable(path: string = hivePath()): Promise<void> {
  try {
    await flushPath(`${path}-wal`);
  } catch (err) {
    // No log: the last connection checkpointed it into the database file, flushed, and removed it.
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
}
