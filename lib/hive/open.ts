/**
 * The hive: one store shared by every harness and process that points at it. By default a SQLite
 * file, `<home>/hive.db` (WAL mode and a busy timeout let several processes of one machine read and
 * write at once; migrations versioned with `PRAGMA user_version`, applied inside an immediate
 * transaction). With `FRAMEWORK_HIVE_URL=postgres://…` (or `--hive URL`) a PostgreSQL database that
 * processes on several hosts share (lib/pg/, docs/deploy.md). Both answer the same synchronous calls,
 * so nothing above lib/hive/ knows which store it has.
 *
 * @module
 */

import { hivePath } from "../paths.ts";
import { markInterruptedRuns } from "./interrupted.ts";
import { MIGRATIONS } from "./migrations.ts";
import { PG_MIGRATIONS } from "./pg_migrations.ts";
import { startCheckpointer } from "../sqlite/checkpointer.ts";
import { databaseCache } from "../sqlite/database.ts";
import type { SqlConnection } from "../sqlite/statements.ts";
import { isPostgresUrl, openPostgres, type PgConnection } from "../pg/connection.ts";
import { migratePostgres } from "../pg/migrate.ts";
import type { DatabaseSync } from "node:sqlite";

/** An open hive connection: a SQLite database, or a PostgreSQL connection answering the same calls. */
export type Hive = SqlConnection;

const hives = databaseCache(MIGRATIONS, markInterruptedRuns);
const pgHives = new Map<string, PgConnection>();

let urlOverride: string | undefined;

/**
 * Sets this JavaScript realm's hive database (tests that run in parallel in one process, the
 * `--hive` flag). `undefined` restores `$FRAMEWORK_HIVE_URL`, else the SQLite file.
 *
 * @param url A `postgres://` URL, or undefined.
 */
export function setHiveUrl(url: string | undefined): void {
  urlOverride = url;
}

/**
 * Where the hive is: the realm's URL, else `$FRAMEWORK_HIVE_URL`, else `<home>/hive.db`.
 *
 * @returns A `postgres://` URL or the SQLite file's path.
 */
export function hiveLocation(): string {
  return urlOverride ?? (Deno.env.get("FRAMEWORK_HIVE_URL") || undefined) ?? hivePath();
}

/**
 * Which store a hive connection is.
 *
 * @param db The connection.
 * @returns `postgres` or `sqlite`.
 */
export function hiveStore(db: Hive): "postgres" | "sqlite" {
  return isPgHive(db) ? "postgres" : "sqlite";
}

/**
 * Whether a hive connection is PostgreSQL's (its statements may then use `query` with `$n`
 * placeholders, as the journal copy's multi-row inserts do).
 *
 * @param db The connection.
 * @returns True for PostgreSQL.
 */
export function isPgHive(db: Hive): db is PgConnection {
  return (db as Partial<PgConnection>).store === "postgres";
}

/**
 * Opens (or returns the cached connection to) the hive, creating and migrating it; a newly opened
 * hive marks the runs of dead processes interrupted.
 *
 * @example
 * ```ts
 * import { statement } from "../sqlite/statements.ts";
 *
 * const db = openHive();
 * statement(db, "SELECT count(*) AS n FROM harnesses").get(); // { n: 3 }
 * ```
 * @param location A SQLite file or a `postgres://` URL (default {@link hiveLocation}).
 * @returns The connection.
 * @throws FrameworkError (503, `hive_unavailable`) naming the database (without its password) when
 * a PostgreSQL hive does not answer.
 */
export function openHive(location: string = hiveLocation()): Hive {
  if (!isPostgresUrl(location)) return hives.open(location);
  const cached = pgHives.get(location);
  if (cached?.isOpen) return cached;
  const db = openPostgres(location);
  try {
    migratePostgres(db, PG_MIGRATIONS);
    markInterruptedRuns(db);
  } catch (err) {
    db.close();
    throw err;
  }
  pgHives.set(location, db);
  return db;
}

/**
 * Starts the hive's checkpointer (lib/sqlite/checkpointer.ts) for a long-running process: a server's
 * runs then never carry a checkpoint's copy and fsyncs on the event loop. A PostgreSQL hive needs
 * none (the server checkpoints).
 *
 * @param location The hive (default {@link hiveLocation}).
 * @returns Stops it (call once, when the server closes).
 */
export function startHiveCheckpointer(
  location: string = hiveLocation(),
): () => Promise<void> {
  if (isPostgresUrl(location)) return () => Promise.resolve();
  return startCheckpointer(openHive(location) as DatabaseSync, location);
}

/**
 * Closes every cached hive connection (tests and clean shutdown).
 */
export function closeHives(): void {
  hives.closeAll();
  for (const db of pgHives.values()) db.close();
  pgHives.clear();
}
