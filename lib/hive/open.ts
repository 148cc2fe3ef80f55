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
import { openDatabase } from "../sqlite/database.ts";

/** An open hive connection. */
export type Hive = DatabaseSync;

const open = new Map<string, Hive>();
/**
 * Opens (or returns the cached connection to) the hive at `path`, creating and migrating it.
 *
 * @example
 * ```ts
 * const db = openHive();
 * statement(db, "SELECT count(*) AS n FROM harnesses").get();
 * ```
 * @param path The database file (default `<home>/hive.db`).
 * @returns The connection.
 */
export function openHive(path: string = hivePath()): Hive {
  const cached = open.get(path);
  if (cached?.isOpen) return cached;
  const db = openDatabase(path, MIGRATIONS);
  markInterruptedRuns(db);
  open.set(path, db);
  return db;
}

/**
 * Closes every cached hive connection (tests and clean shutdown).
 */
export function closeHives(): void {
  for (const db of open.values()) if (db.isOpen) db.close();
  open.clear();
}

/**
 * Runs `fn` inside an immediate transaction (rolled back if it throws).
 *
 * @param db The connection.
 * @param fn The work.
 * @returns What `fn` returns.
 */
export function inTransaction<T>(db: Hive, fn: () => T): T {
  db.exec("BEGIN IMMEDIATE");
  try {
    const out = fn();
    db.exec("COMMIT");
    return out;
  } catch (err) {
    db.exec("ROLLBACK");
    throw err;
  }
}
