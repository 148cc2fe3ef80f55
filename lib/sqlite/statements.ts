/**
 * Prepared statements cached per connection. `node:sqlite` in Deno 2.9 keeps every statement that
 * `db.prepare()` made until the connection closes, so preparing on every call grows the process with
 * every request. Each SQL text is prepared once per connection here and reused.
 *
 * @module
 */

import { keepRecent } from "../recent.ts";

/** A value bound to a `?` parameter. */
export type SqlValue = string | number | bigint | null | Uint8Array;

/** What a write reports: rows changed and the last inserted rowid (SQLite only; 0 elsewhere). */
export interface SqlChanges {
  changes: number | bigint;
  lastInsertRowid: number | bigint;
}

/** A prepared statement, as `node:sqlite`'s `StatementSync` is one and lib/pg/ makes one. */
export interface SqlStatement {
  get(...args: SqlValue[]): Record<string, unknown> | undefined;
  all(...args: SqlValue[]): Record<string, unknown>[];
  run(...args: SqlValue[]): SqlChanges;
}

/**
 * A synchronous SQL connection: `node:sqlite`'s `DatabaseSync`, or a PostgreSQL connection of
 * lib/pg/ that answers the same calls (its SQL text translated there), so every statement of the
 * hive is written once for both stores.
 */
export interface SqlConnection {
  prepare(sql: string): SqlStatement;
  exec(sql: string): void;
  readonly isOpen: boolean;
  close(): void;
}

/**
 * How many distinct SQL texts one connection keeps. The framework's texts are fixed strings and a few
 * filter combinations (far fewer); the bound only guards against a future caller that builds texts
 * from values.
 */
const MAX_STATEMENTS = 256;

const caches = new WeakMap<SqlConnection, Map<string, SqlStatement>>();

/**
 * The prepared statement of `sql` on `db`, prepared on first use and reused afterwards. Bind values
 * with `?` parameters; never build the text from values.
 *
 * @example
 * ```ts
 * import { openHive } from "../hive/open.ts";
 *
 * const row = statement(openHive(), "SELECT status FROM runs WHERE run_id = ?").get("run_01…");
 * ```
 * @param db The connection.
 * @param sql The SQL text.
 * @returns The statement.
 */
export function statement(db: SqlConnection, sql: string): SqlStatement {
  let cache = caches.get(db);
  if (!cache) {
    cache = new Map();
    caches.set(db, cache);
  }
  const cached = cache.get(sql);
  if (cached) return cached;
  const made = db.prepare(sql);
  // Beyond the bound the oldest text is forgotten; its statement is finalized when the connection
  // closes.
  keepRecent(cache, sql, made, MAX_STATEMENTS);
  return made;
}
