/**
 * Journals' lines in a PostgreSQL hive, byte for byte (each without its newline), so every process
 * sharing the database serves every run's trace and its export verifies. A SQLite hive keeps
 * journals as files only; these calls are for a PostgreSQL one (`hiveStore(db) === "postgres"`).
 *
 * @module
 */

import type { Hive } from "./open.ts";
import { type SqlValue, statement } from "../sqlite/statements.ts";
import type { PgConnection } from "../pg/connection.ts";

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
 * Copies lines of a run's journal in a few statements (lines already there are left alone, so a
 * copy can be made again after a lost connection): a run's batches as it writes
 * (lib/journal/writer.ts), its whole file after a lost connection, and the migration of a SQLite
 * hive (lib/journal/hive_migrate.ts) — one statement a line would cost a round trip each.
 *
 * @param db The hive (PostgreSQL).
 * @param runId The run.
 * @param lines Its lines in order, without their newlines.
 * @param first The seq of the first of `lines`.
 * @returns How many lines went in.
 */
export function copyJournalLines(
  db: PgConnection,
  runId: string,
  lines: readonly string[],
  first = 1,
): number {
  let n = 0;
  for (const [sql, args] of lineInserts(runId, lines, first)) n += db.query(sql, args).count;
  return n;
}

/**
 * The line sink of a run's journal writer on a PostgreSQL hive: each batch is sent without waiting
 * for its answer (lib/pg/connection.ts `send`), so a run's lines cost it no round trip of their own
 * — the last batch goes down the connection together with the run's end, which
 * `finishRun` (lib/hive/runs.ts) records only when the hive holds every line. A batch that failed
 * makes the next one throw (the writer then stops copying); {@link journalCopyFailure} tells the
 * end of the run.
 *
 * @param db The hive (PostgreSQL).
 * @param runId The run.
 * @returns The sink (`first` is the seq of the first of `lines`).
 */
export function journalLineSender(
  db: PgConnection,
  runId: string,
): (first: number, lines: string[]) => void {
  return (first, lines) => {
    for (const [sql, args] of lineInserts(runId, lines, first)) db.send(copyTag(runId), sql, args);
  };
}

/**
 * Whether the batches {@link journalLineSender} sent for a run all went in: waits for the ones not
 * answered yet (none, after a later waited statement) and forgets them.
 *
 * @param db The hive (PostgreSQL).
 * @param runId The run.
 * @returns The first failure, or undefined.
 */
export function journalCopyFailure(db: PgConnection, runId: string): Error | undefined {
  return db.settle(copyTag(runId));
}

function copyTag(runId: string): string {
  return `journal:${runId}`;
}

/** The multi-row inserts of {@link copyJournalLines}: text and arguments. */
function lineInserts(
  runId: string,
  lines: readonly string[],
  first: number,
): [string, SqlValue[]][] {
  const out: [string, SqlValue[]][] = [];
  for (let start = 0; start < lines.length; start += LINES_PER_STATEMENT) {
    const part = lines.slice(start, start + LINES_PER_STATEMENT);
    const args: SqlValue[] = [runId];
    const tuples = part.map((line, i) => {
      args.push(first + start + i, line);
      return `($1, $${args.length - 1}, $${args.length})`;
    });
    out.push([
      `INSERT INTO journal_lines (run_id, seq, line) VALUES ${
        tuples.join(", ")
      } ON CONFLICT DO NOTHING`,
      args,
    ]);
  }
  return out;
}

/** Lines per statement of {@link copyJournalLines}. */
const LINES_PER_STATEMENT = 500;

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
