/**
 * Versioned migrations on PostgreSQL: the version is the row of `hive_schema`, and the migrations
 * are applied inside one transaction holding the hive's transaction lock, so two processes opening a
 * new database at once do not race (the second finds the work done).
 *
 * @module
 */

import type { PgConnection } from "./connection.ts";
import { inTransaction } from "../sqlite/database.ts";

/**
 * Applies pending migrations in one transaction.
 *
 * @param db The connection.
 * @param migrations Migration `i` moves the version from `i` to `i + 1`.
 * @returns The schema version after migrating.
 */
export function migratePostgres(db: PgConnection, migrations: readonly string[]): number {
  return inTransaction(db, () => {
    db.exec("CREATE TABLE IF NOT EXISTS hive_schema (version INTEGER NOT NULL)");
    let version = Number(db.query("SELECT version FROM hive_schema").rows[0]?.version ?? -1);
    if (version < 0) {
      db.query("INSERT INTO hive_schema VALUES (0)");
      version = 0;
    }
    for (const [i, sql] of migrations.entries()) {
      if (version > i) continue;
      db.exec(sql);
      db.query("UPDATE hive_schema SET version = $1", [i + 1]);
      version = i + 1;
    }
    return version;
  });
}
