/**
 * The copy of journals a PostgreSQL hive keeps (lib/hive/journal_lines.ts): made in batches of lines
 * as a run writes its file (lib/journal/writer.ts), made again from the file after a lost connection, and read back by any
 * process that serves the run. A SQLite hive keeps none: its journals are the files.
 *
 * @module
 */

import { frameworkHome } from "../paths.ts";
import { type Hive, hiveStore, isPgHive } from "../hive/open.ts";
import { copyJournalLines, journalLineCount, journalLinesBytes } from "../hive/journal_lines.ts";
import type { RunRow } from "../hive/runs.ts";
import { writeFileAtomic } from "../fs/atomic_write.ts";

/**
 * The line sink of a run's journal writer: the hive's copy, or none for a SQLite hive.
 *
 * @param db The hive.
 * @param runId The run.
 * @returns The sink, or undefined.
 */
export function journalCopier(
  db: Hive,
  runId: string,
): ((first: number, lines: string[]) => void) | undefined {
  if (!isPgHive(db)) return undefined;
  return (first, lines) => void copyJournalLines(db, runId, lines, first);
}

/**
 * Copies a whole journal file into the hive (lines already there are kept): after a connection was
 * lost while the run wrote, the hive's copy is made whole again from the file.
 *
 * @param db The hive (PostgreSQL; nothing to do for SQLite).
 * @param runId The run.
 * @param path Its journal file.
 * @returns How many lines the file has.
 */
export async function copyJournalFile(db: Hive, runId: string, path: string): Promise<number> {
  if (!isPgHive(db)) return 0;
  const text = await Deno.readTextFile(path);
  const lines = text.split("\n");
  lines.pop(); // after the last newline: empty, or a line cut short by a crash
  copyJournalLines(db, runId, lines);
  return lines.length;
}

/**
 * The file to read a run's journal from. With a PostgreSQL hive the hive's copy is the source (the
 * run may have been made on another host): written to `<home>/journals/<run_id>.jsonl` and read
 * there, kept while the run is finished and the copy complete. Otherwise, or when the hive holds no
 * copy, the run's own file.
 *
 * @param db The hive.
 * @param row The run.
 * @returns A path.
 */
export async function journalFileOf(db: Hive, row: RunRow): Promise<string> {
  if (hiveStore(db) !== "postgres") return row.trace_path;
  const cached = `${frameworkHome()}/journals/${row.run_id}.jsonl`;
  const finished = row.status !== "running";
  if (finished) {
    try {
      const have = (await Deno.readTextFile(cached)).split("\n").length - 1;
      if (have === row.events && have === journalLineCount(db, row.run_id)) return cached;
    } catch { /* not cached yet */ }
  }
  const bytes = journalLinesBytes(db, row.run_id);
  if (!bytes) return row.trace_path;
  await Deno.mkdir(`${frameworkHome()}/journals`, { recursive: true, mode: 0o700 });
  await writeFileAtomic(cached, bytes, { mode: 0o600 });
  return cached;
}
