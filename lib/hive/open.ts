/**
 * The hive: `<home>/hive.db`, one SQLite database shared by every harness and process on the machine.
 * WAL mode and a busy timeout let several processes read and write at once; migrations are versioned
 * with `PRAGMA user_version` and applied inside an immediate transaction, so two processes opening a
 * new hive at once do not race.
 *
 * @module
 */

import type { DatabaseSync } from "node:sqlite";
import { hivePath } from "../paths.ts";
import { markInterruptedRuns } from "./interrupted.ts";
import { MIGRATIONS } from "./migrations.ts";
import { startCheckpointer } from "../sqlite/checkpointer.ts";
import { databaseCache } from "../sqlite/database.ts";

/** An open hive connection. */
export type Hive = DatabaseSync;

const hives = databaseCache(MIGRATIONS, markInterruptedRuns);

/**
 * Opens (or returns the cached connection to) the hive at `path`, creating and migrating it; a newly
 * opened hive marks the runs of dead processes interrupted.
 *
 * @example
 * ```ts
 * import { statement } from "../sqlite/statements.ts";
 *
 * const db = openHive();
 * statement(db, "SELECT count(*) AS n FROM harnesses").get(); // { n: 3 }
 * ```
 * @param path The database file (default `<home>/hive.db`).
 * @returns The connection.
 */
export function openHive(path: string = hivePath()): Hive {
  return hives.open(path);
}

/**
 * Starts the hive's checkpointer (lib/sqlite/checkpointer.ts) for a long-running process: a server's
 * runs then never carry a checkpoint's copy and fsyncs on the event loop.
 *
 * @param path The database file (default `<home>/hive.db`).
 * @returns Stops it (call once, when the server closes).
 */
export function startHiveCheckpointer(path: string = hivePath()): () => Promise<void> {
  return startCheckpointer(openHive(path), path);
}

/**
 * Closes every cached hive connection (tests and clean shutdown).
 */
export function closeHives(): void {
  hives.closeAll();
}
