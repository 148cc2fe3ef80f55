/**
 * Prepared statements cached per connection. `node:sqlite` in Deno 2.9 keeps every statement that
 * `db.prepare()` made until the connection closes, so preparing on every call grows the process with
 * every request. Each SQL text is prepared once per connection here and reused.
 *
 * @module
 */

import type { DatabaseSync, StatementSync } from "node:sqlite";

/**
 * How many distinct SQL texts one connection keeps. The framework's texts are fixed strings and a few
 * filter combinations (far fewer); the bound only guards against a future caller that builds texts
 * from values.
 */
const MAX_STATEMENTS = 256;

const caches = new WeakMap<DatabaseSync, Map<string, StatementSync>>();

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
export function statement(db: DatabaseSync, sql: string): StatementSync {
  let cache = caches.get(db);
  if (!cache) {
    cache = new Map();
    caches.set(db, cache);
  }
  const cached = cache.get(sql);
  if (cached) return cached;
  if (cache.size >= MAX_STATEMENTS) {
    // Forget the oldest text; its statement is finalized when the connection closes.
    const oldest = cache.keys().next().value as string;
    cache.delete(oldest);
  }
  const made = db.prepare(sql);
  cache.set(sql, made);
  return made;
}
