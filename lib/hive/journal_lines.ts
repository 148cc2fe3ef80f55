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

/**
 * The lines of a run's journal after a seq, as far as they follow on without a gap (a copy made
 * again after a lost connection fills in from the start): for following a run in progress.
 *
 * @param db The hive.
 * @param runId The run.
 * @param afterSeq The last seq already read.
 * @returns The lines in order, each with its seq.
 */
export function journalLinesAfter(
  db: Hive,
  runId: string,
  afterSeq: number,
): { seq: number; line: string }[] {
  const rows = statement(
    db,
    "SELECT seq, line FROM journal_lines WHERE run_id = ? AND seq > ? ORDER BY seq",
  ).all(runId, afterSeq) as { seq: number; line: string }[];
  const out: { seq: number; line: string }[] = [];
  for (const r of rows) {
    if (Number(r.seq) !== afterSeq + out.length + 1) break;
    out.push({ seq: Number(r.seq), line: r.line });
  }
  return out;
}
