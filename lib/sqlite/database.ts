/**
 * Opening SQLite databases the framework's way: WAL and a busy timeout so several processes can share
 * a file, foreign keys on, and versioned migrations (`PRAGMA user_version`) applied inside an
 * immediate transaction, so two processes opening a new database at once do not race.
 *
 * @module
 */

import { DatabaseSync } from "node:sqlite";
import { dirname } from "node:path";
import { type SqlConnection, statement } from "./statements.ts";

/**
 * Applies pending migrations in one immediate transaction.
 *
 * @param db The connection.
 * @param migrations Migration `i` moves `user_version` from `i` to `i + 1`.
 * @returns The schema version after migrating.
 */
export function migrate(db: DatabaseSync, migrations: readonly string[]): number {
  return inTransaction(db, () => {
    let version =
      (statement(db, "PRAGMA user_version").get() as { user_version: number }).user_version;
    for (const [i, sql] of migrations.entries()) {
      if (version > i) continue;
      db.exec(sql);
      db.exec(`PRAGMA user_version = ${i + 1}`);
      version = i + 1;
    }
    return version;
  });
}

/** How deep each connection is in {@link inTransaction} (savepoints inside the outermost one). */
const depths = new WeakMap<SqlConnection, number>();

/**
 * Runs `fn` inside an immediate transaction (rolled back if it throws): the write lock is taken at
 * the start, so two processes never interleave the reads and writes of one change. Called inside
 * another, it runs in a savepoint of the outer transaction: its own writes are undone if it throws,
 * and the outer transaction commits the rest (lib/hive/group_commit.ts commits several runs' writes
 * together this way).
 *
 * @param db The connection.
 * @param fn The work.
 * @returns What `fn` returns.
 */
export function inTransaction<T>(db: SqlConnection, fn: () => T): T {
  const depth = depths.get(db) ?? 0;
  const [begin, commit, rollback] = depth
    ? [`SAVEPOINT nested_${depth}`, `RELEASE nested_${depth}`, `ROLLBACK TO nested_${depth}`]
    : ["BEGIN IMMEDIATE", "COMMIT", "ROLLBACK"];
  db.exec(begin);
  depths.set(db, depth + 1);
  try {
    const out = fn();
    db.exec(commit);
    return out;
  } catch (err) {
    db.exec(rollback);
    if (depth) db.exec(commit);
    throw err;
  } finally {
    depths.set(db, depth);
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
  // Statement journals (needed by every write that fires a trigger) stay in memory, not temp files.
  db.exec("PRAGMA temp_store = MEMORY");
  migrate(db, migrations);
  return db;
}

/** One connection per database file and realm, opened on first use. */
export interface DatabaseCache {
  /** Opens (or returns the open connection to) the file, creating and migrating it. */
  open(path: string): DatabaseSync;
  /** Closes every connection it opened (tests, shutdown). */
  closeAll(): void;
}

/**
 * A cache of connections to databases of one schema: each file is opened, migrated and prepared
 * once per realm, and a closed connection is opened again on the next use.
 *
 * @example
 * ```ts
 * const hives = databaseCache(["CREATE TABLE t (a)"]);
 * hives.open("/tmp/x.db") === hives.open("/tmp/x.db"); // true
 * ```
 * @param migrations The schema's migrations.
 * @param onOpen Work to do once on each newly opened connection (e.g. repairing state).
 * @returns The cache.
 */
export function databaseCache(
  migrations: readonly string[],
  onOpen?: (db: DatabaseSync) => void,
): DatabaseCache {
  const open = new Map<string, DatabaseSync>();
  return {
    open(path) {
      const cached = open.get(path);
      if (cached?.isOpen) return cached;
      const db = openDatabase(path, migrations);
      onOpen?.(db);
      open.set(path, db);
      return db;
    },
    closeAll() {
      for (const db of open.values()) if (db.isOpen) db.close();
      open.clear();
    },
  };
}
