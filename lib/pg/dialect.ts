/**
 * The few SQLite forms the hive's statements use that PostgreSQL spells differently, translated in
 * one place, so each statement is written once for both stores (docs/decisions.md, "The hive on
 * PostgreSQL"). Everything else the hive writes is portable SQL; the SQLite functions it uses that
 * PostgreSQL lacks (`total`) are defined in the PostgreSQL schema instead.
 *
 * @module
 */

/**
 * Translates one statement of the hive from SQLite's dialect to PostgreSQL's:
 * - parameters: `?` → `$1, $2, …` in order, `?N` → `$N`;
 * - `INDEXED BY <index>` (a SQLite planner hint) is dropped;
 * - `json_each(x)` (a JSON array of strings) → `json_array_elements_text(x::json)`, whose column is
 *   also `value`;
 * - `a IS NOT b` (b not NULL) → `a IS DISTINCT FROM b`.
 *
 * Text inside single quotes is left alone.
 *
 * @example
 * ```ts
 * toPostgres("SELECT * FROM runs INDEXED BY runs_running WHERE run_id = ? AND n < ?");
 * // "SELECT * FROM runs WHERE run_id = $1 AND n < $2"
 * ```
 * @param sql The SQLite text.
 * @returns The PostgreSQL text.
 */
export function toPostgres(sql: string): string {
  let out = "";
  let next = 1;
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i]!;
    if (c === "'") {
      const end = sql.indexOf("'", i + 1);
      const stop = end < 0 ? sql.length : end + 1;
      out += sql.slice(i, stop);
      i = stop - 1;
      continue;
    }
    if (c === "?") {
      const m = /^\d+/.exec(sql.slice(i + 1));
      if (m) {
        out += `$${m[0]}`;
        i += m[0].length;
      } else out += `$${next++}`;
      continue;
    }
    out += c;
  }
  return out
    .replace(/\s+INDEXED BY\s+\w+/gi, "")
    .replace(/\bjson_each\(([^()]+)\)/gi, "json_array_elements_text(($1::text)::json)")
    .replace(/\bIS NOT\s+(?!NULL\b)/gi, "IS DISTINCT FROM ");
}
