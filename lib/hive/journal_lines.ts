/**
 * Journals' lines in a PostgreSQL hive, byte for byte (each without its newline), so every process
 * sharing the database serves every run's trace and its export verifies. A SQLite hive keeps
 * journals as files only; these calls are for a PostgreSQL one (`hiveStore(db) === "postgres"`).
 *
 * @module
 */

import type { Hive } from "./open.ts";
import { statement } from "../sqlite/statements.ts";

/**
 * Copies one line of a run's journal (a line already there is left alone, so a copy can be made
 * again after a lost connection).
 *
 * @param db The hive.
 * @param runId The run.
 * @param seq The line's seq (1-based).
 * @param line The line, without its newline.
 */
export function copyJournalLine(db: Hive, runId: string, seq: number, line: string): void {
  statement(
    db,
    "INSERT INTO journal_lines (run_id, seq, line) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
  ).run(runId, seq, line);
}

/**
 * A run's journal as the hive holds it: its lines in order, each followed by a newline.
 *
 * @param db The hive.
 * @param runId The run.
 * @returns The bytes, or undefined when the hive holds no line of it.
 */
export function journalLinesBytes(db: Hive, runId: string): Uint8Array | undefined {
  const rows = statement(db, "SELECT line FROM journal_lines WHERE run_id = ? ORDER BY seq")
    .all(runId) as { line: string }[];
  if (rows.length === 0) return undefined;
  return new TextEncoder().encode(rows.map((r) => `${r.line}\n`).join(""));
}

/**
 * How many lines of a run's journal the hive holds.
 *
 * @param db The hive.
 * @param runId The run.
 * @returns The count.
 */
export function journalLineCount(db: Hive, runId: string): number {
  return Number(
    (statement(db, "SELECT count(*) AS n FROM journal_lines WHERE run_id = ?").get(runId) as {
      n: number;
    }).n,
  );
}
