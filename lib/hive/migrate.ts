/**
 * Copying a SQLite hive's rows into a PostgreSQL one (`framework hive migrate`, docs/deploy.md). The
 * tables a hive holds are copied row by row; the statistics (totals, durations, failure groups,
 * counters, trace folders) are not copied but made again by the target's triggers as the runs go in,
 * so `/stats` on the target answers what the source answered. A row already in the target is kept
 * as it is, so a second migration copies only what is missing. The journals' lines are copied by
 * lib/journal/hive_migrate.ts, which verifies them (the hash chain lives above this floor).
 *
 * @module
 */

import type { DatabaseSync } from "node:sqlite";
import { badInput } from "../errors.ts";
import type { PgConnection } from "../pg/connection.ts";
import type { SqlValue } from "../sqlite/statements.ts";

/** A table the migration copies, and the columns that tell one of its rows from another's. */
interface CopiedTable {
  name: string;
  /** The row's identity: its primary key, or for spec versions what makes a version that version. */
  key: readonly string[];
  /** A column the target numbers itself (not copied). */
  generated?: string;
}

/**
 * Every table of the hive the migration copies, parents first. The others (run_totals,
 * run_duration_buckets, run_durations, run_failure_groups, hive_counters, trace_folders) are derived
 * from runs by triggers; journal_lines is PostgreSQL's own.
 */
export const COPIED_TABLES: readonly CopiedTable[] = [
  { name: "harnesses", key: ["id"] },
  { name: "harness_duplicates", key: ["root_path"] },
  {
    name: "spec_versions",
    key: ["harness_id", "harness_dir", "version", "created_at"],
    generated: "seq",
  },
  { name: "runs", key: ["run_id"] },
  { name: "proposals", key: ["id"] },
  { name: "evals", key: ["eval_id"] },
  { name: "fork_origins", key: ["root_path"] },
  { name: "threads", key: ["thread_id"] },
  { name: "approvals", key: ["approval_id"] },
  { name: "remote_handoffs", key: ["handoff_id"] },
];

const PAGE = 2000;
/** Rows per multi-row INSERT (PostgreSQL takes at most 65,535 parameters a statement). */
const BATCH = 250;

/** How many of a table's rows went in, and how many were there already. */
export interface TableCopy {
  copied: number;
  present: number;
}

function columnsOf(source: DatabaseSync, target: PgConnection, table: string): string[] {
  const mine = (source.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[])
    .map((c) => c.name);
  const theirs = new Set(
    target.query(
      "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1",
      [table],
    ).rows.map((r) => String(r.column_name)),
  );
  const missing = mine.filter((c) => !theirs.has(c));
  if (missing.length > 0) {
    throw badInput(
      `The target hive's table ${table} has no column ${
        missing.join(", ")
      }: it is older than this framework's; open it once with this version (\`framework stats --hive URL\`) and migrate again`,
    );
  }
  return mine;
}

/**
 * Counts the rows of the target that are not this source's: rows another hive put there. A target
 * holding only rows of this source (an earlier migration of it) counts none.
 *
 * @param source The SQLite hive.
 * @param target The PostgreSQL hive.
 * @returns Table name → rows foreign to the source (tables with none left out).
 */
export function foreignRows(source: DatabaseSync, target: PgConnection): Record<string, number> {
  const out: Record<string, number> = {};
  for (const t of COPIED_TABLES) {
    const keys = t.key.join(", ");
    const inSource = source.prepare(
      `SELECT 1 AS x FROM ${t.name} WHERE ${t.key.map((k) => `${k} = ?`).join(" AND ")} LIMIT 1`,
    );
    let after: SqlValue[] | undefined;
    let foreign = 0;
    for (;;) {
      const from = after
        ? `WHERE (${keys}) > (${t.key.map((_, i) => `$${i + 1}`).join(", ")})`
        : "";
      const rows = target.query(
        `SELECT ${keys} FROM ${t.name} ${from} ORDER BY ${keys} LIMIT ${PAGE}`,
        after ?? [],
      ).rows;
      for (const r of rows) {
        // SQLite's column affinity compares PostgreSQL's BIGINT-as-text with its integers.
        if (!inSource.get(...t.key.map((k) => r[k] as SqlValue))) foreign++;
      }
      if (rows.length < PAGE) break;
      after = t.key.map((k) => rows.at(-1)![k] as SqlValue);
    }
    if (foreign > 0) out[t.name] = foreign;
  }
  return out;
}

/**
 * Copies every row of one table that the target does not hold yet (a row already there is kept as
 * it is), in batches, in the caller's transaction.
 *
 * @param source The SQLite hive.
 * @param target The PostgreSQL hive.
 * @param table The table.
 * @returns How many rows went in and how many were there already.
 */
export function copyTable(
  source: DatabaseSync,
  target: PgConnection,
  table: CopiedTable,
): TableCopy {
  const columns = columnsOf(source, target, table.name)
    .filter((c) => c !== table.generated);
  const list = columns.join(", ");
  const order = table.generated ?? table.key.join(", ");
  const rows = source.prepare(`SELECT ${list} FROM ${table.name} ORDER BY ${order}`)
    .iterate() as Iterable<Record<string, SqlValue>>;
  let copied = 0;
  let total = 0;
  let batch: SqlValue[][] = [];
  const flush = () => {
    if (batch.length === 0) return;
    copied += insertBatch(target, table, columns, batch);
    batch = [];
  };
  for (const row of rows) {
    batch.push(columns.map((c) => row[c] ?? null));
    total++;
    if (batch.length >= BATCH) flush();
  }
  flush();
  return { copied, present: total - copied };
}

function insertBatch(
  target: PgConnection,
  table: CopiedTable,
  columns: readonly string[],
  batch: readonly SqlValue[][],
): number {
  const list = columns.join(", ");
  if (table.generated) {
    // A numbered table (spec versions, all text but its number): the target numbers the rows in the
    // source's order, and a row whose identity is already there is skipped.
    const same = table.key.map((k) => `s.${k} = v.${k} COLLATE "C"`).join(" AND ");
    const values = columns.map((_, i) => `$${i + 1}::text`).join(", ");
    let n = 0;
    for (const row of batch) {
      n += target.query(
        `INSERT INTO ${table.name} (${list}) SELECT ${list} FROM (VALUES (${values})) AS v(${list}) WHERE NOT EXISTS (SELECT 1 FROM ${table.name} s WHERE ${same})`,
        row,
      ).count;
    }
    return n;
  }
  const args: SqlValue[] = [];
  const tuples = batch.map((row) => {
    const at = args.length;
    args.push(...row);
    return `(${row.map((_, i) => `$${at + i + 1}`).join(", ")})`;
  });
  return target.query(
    `INSERT INTO ${table.name} (${list}) VALUES ${tuples.join(", ")} ON CONFLICT DO NOTHING`,
    args,
  ).count;
}

/**
 * The runs of the source still running: a process is using the hive, and their journals are not
 * finished (runs of dead processes were marked interrupted when the hive was opened).
 *
 * @param source The SQLite hive.
 * @returns Their run ids.
 */
export function runsStillRunning(source: DatabaseSync): string[] {
  return (source.prepare("SELECT run_id FROM runs WHERE status = 'running' ORDER BY run_id")
    .all() as { run_id: string }[]).map((r) => r.run_id);
}

/**
 * The runs whose journals the migration copies: every run's id, journal file and the head the hive
 * recorded for it, in id order.
 *
 * @param source The SQLite hive.
 * @returns The runs.
 */
export function runJournals(
  source: DatabaseSync,
): Iterable<{ run_id: string; trace_path: string; head_hash: string | null; events: number }> {
  return source.prepare(
    "SELECT run_id, trace_path, head_hash, events FROM runs ORDER BY run_id",
  ).iterate() as Iterable<
    { run_id: string; trace_path: string; head_hash: string | null; events: number }
  >;
}
