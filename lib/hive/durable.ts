/**
 * The hive's durability for the run path: its writes are committed with `synchronous = NORMAL` (the
 * write-ahead log is written at commit, not flushed), and a run is reported only once the log is
 * flushed past its finishing write. The flush is shared by the runs that finish together
 * (`lib/fs/group_flush.ts`): one `fdatasync` of the log serves every commit made before it started.
 * A checkpoint that moved a commit into the database file flushed that file first, so the commit is
 * durable either way. A PostgreSQL hive's commits are durable when they return: nothing to wait for.
 *
 * @module
 */

import { flushPath } from "../fs/group_flush.ts";
import { isPostgresUrl } from "../pg/connection.ts";
import { hiveLocation } from "./open.ts";

/**
 * Resolves once every hive write this process committed before the call is durable.
 *
 * @example
 * ```ts
 * // after a run's finishing write (finishRun), before the run is reported:
 * await hiveDurable();
 * ```
 * @param location The hive: its SQLite file or a PostgreSQL URL (default: this process's hive).
 */
export async function hiveDurable(location: string = hiveLocation()): Promise<void> {
  if (isPostgresUrl(location)) return;
  try {
    await flushPath(`${location}-wal`);
  } catch (err) {
    // No log: the last connection checkpointed it into the database file, flushed, and removed it.
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
}
