/**
 * Opening SQLite databases the framework's way: WAL and a busy timeout so several processes can share
 * a file, foreign keys on, and versioned migrations (`PRAGMA user_version`) applied inside an
 * immediate transaction, so two processes opening a new database at once do not race.
 *
 * @module
 */

import { DatabaseSync } from "node:sqlite";
import { dirname } from "node:path";
import { statement } from "./statements.ts";

/**
 * Applies pending migrations in one immediate transaction.
 *
 * @param db The connection.
 * @param migrations Migration `i` moves `user_version` from `i` to `i + 1`.
 * @returns The schema version after migrating.
 */
export function migrate(db: DatabaseSync, migrations: readonly string[]): number {
  db.exec("BEGIN IMMEDIATE");
  try {
    let version =
      (statement(db, "PRAGMA user_version").get() as { user_version: number }).user_version;
    for (const [i, sql] of migrations.entries()) {
      if (version > i) continue;
      db.exec(sql);
      db.exec(`PRAGMA user_version = ${i + 1}`);
      version = i + 1;
    }
    db.exec("COMMIT");
    return version;
  } catch (err) {
    db.exec("ROLLBACK");
    throw err;
  }
}

/**
 * Opens a database file (creating its folder), sets the shared pragmas and migrates it.
 *
 * @example
 * ```ts
 * const db = openDatabase("/tmp/x.db", ["CREATE TABLE t (a)"]);
 * ```
 * @param path The file.
 * @param migrations The schema's migrations.
 * @returns The connection.
 */
export function openDatabase(path: string, migrations: readonly string[]): DatabaseSync {
  Deno.mkdirSync(dirname(path), { recursive: true });
  const db = new DatabaseSync(path, { timeout: 15_000 });
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA busy_timeout = 15000");
  db.exec("PRAGMA synchronous = NORMAL");
  db.exec("PRAGMA foreign_keys = ON");
  migrate(db, migrations);
  return db;
}
