/**
 * `framework hive migrate`: a SQLite hive and its journals copied into PostgreSQL (docs/deploy.md).
 The copy is one transaction on the target: it lands whole or not at all. Every journal is verified
 * as it is copied (its hash chain, and the head the hive recorded for it); one that does not verify
 * undoes the migration, every such journal named, unless told to copy the rest (`skipBroken`: the
 * broken runs' rows are copied without their journals, and the result names them so the command
 * still does not end as a success). A target holding another hive's rows is refused unless told
 * (`merge`); rows already there are kept, so migrating twice copies nothing twice. Each journal copied
 * is read back from the target and compared byte for byte with its file.
 *
 * @module
 */

import type { DatabaseSync } from "node:sqlite";
import { existsSync } from "node:fs";
import { badInput, FrameworkError } from "../errors.ts";
import { hivePath } from "../paths.ts";
import { openHive } from "../hive/open.ts";
import { isPostgresUrl, type PgConnection } from "../pg/connection.ts";
import { inTransaction } from "../sqlite/database.ts";
import {
  COPIED_TABLES,
  copyTable,
  foreignRows,
  runJournals,
  runsStillRunning,
  type TableCopy,
} from "../hive/migrate.ts";
import { copyJournalLines, journalLinesBytes } from "../hive/journal_lines.ts";
import { verifyJournal } from "./verify.ts";

/** What to migrate where. */
export interface MigrateOptions {
  /** The SQLite hive (default `<home>/hive.db`). */
  from?: string;
  /** The PostgreSQL URL. */
  to: string;
  /** Copy into a target that holds another hive's rows. */
  merge?: boolean;
  /** Copy everything else when journals do not verify (they are named; not a success). */
  skipBroken?: boolean;
}

/** A journal that did not verify. */
export interface BrokenJournal {
  run_id: string;
  path: string;
  /** `missing` (no file), `chain` (a line changed, dropped or torn), `head` (shorter than recorded). */
  problem: "missing" | "chain" | "head";
  /** The seq of the first broken line (chain), or null. */
  broken_at: number | null;
}

/** What a migration did. */
export interface MigrateResult {
  from: string;
  /** The target, without its password. */
  to: string;
  tables: Record<string, TableCopy>;
  journals: { verified: number; lines_copied: number; lines_present: number };
  /** Journals that did not verify (copied without them only with `skipBroken`). */
  broken: BrokenJournal[];
}

const decoder = new TextDecoder();

function checkJournal(
  run: { run_id: string; trace_path: string; head_hash: string | null; events: number },
): { bytes: Uint8Array } | BrokenJournal {
  let bytes: Uint8Array;
  try {
    bytes = Deno.readFileSync(run.trace_path);
  } catch {
    return { run_id: run.run_id, path: run.trace_path, problem: "missing", broken_at: null };
  }
  const integrity = verifyJournal(bytes);
  if (!integrity.ok) {
    return {
      run_id: run.run_id,
      path: run.trace_path,
      problem: "chain",
      broken_at: integrity.broken_at,
    };
  }
  const events = Number(run.events);
  if (run.head_hash && events > 0) {
    const line = decoder.decode(bytes).split("\n")[events - 1];
    const hash = line ? (JSON.parse(line) as { hash?: string }).hash : undefined;
    if (hash !== run.head_hash) {
      return { run_id: run.run_id, path: run.trace_path, problem: "head", broken_at: null };
    }
  }
  return { bytes };
}

function describeBroken(b: BrokenJournal): string {
  const what = b.problem === "missing"
    ? "no file"
    : b.problem === "head"
    ? "ends before the head the hive recorded"
    : `broken at line ${b.broken_at}`;
  return `${b.run_id} (${b.path}: ${what})`;
}

function openSource(from: string): DatabaseSync {
  if (isPostgresUrl(from)) {
    throw badInput("--from is a SQLite hive file (a hive.db); the target goes in --to");
  }
  if (!existsSync(from)) {
    throw new FrameworkError(
      "not_found",
      `No hive at ${from}: pass --from <hive.db> or set FRAMEWORK_HOME to the home that holds it`,
    );
  }
  return openHive(from) as DatabaseSync;
}

/**
 * Copies a SQLite hive and its journals into a PostgreSQL hive.
 *
 * @example
 * ```ts
 * const r = migrateHive({ to: "postgres://app@db:5432/hive" });
 * r.tables.runs; // { copied: 120, present: 0 }
 * ```
 * @param options Where from, where to, and what to allow.
 * @returns What was copied (and, with `skipBroken`, the journals left out).
 * @throws FrameworkError `bad_input` for a target that is not a `postgres://` URL; `not_found` for a
 * missing source; `conflict` while runs are running, for journals that do not verify (unless
 * `skipBroken`), for a target holding another hive's rows (unless `merge`) and when a journal read
 * back from the target differs from its file (nothing is written then).
 */
export function migrateHive(options: MigrateOptions): MigrateResult {
  if (!isPostgresUrl(options.to)) {
    throw badInput(
      "--to must be a PostgreSQL URL: postgres://user:password@host:5432/database",
    );
  }
  const from = options.from ?? hivePath();
  const source = openSource(from);
  const target = openHive(options.to) as PgConnection;
  const running = runsStillRunning(source);
  if (running.length > 0) {
    throw new FrameworkError(
      "conflict",
      `${running.length} run(s) of ${from} are still running (${
        running.slice(0, 5).join(", ")
      }): stop the processes using this hive, then migrate`,
      { running },
    );
  }
  const foreign = foreignRows(source, target);
  if (Object.keys(foreign).length > 0 && !options.merge) {
    const where = Object.entries(foreign).map(([t, n]) => `${t}: ${n}`).join(", ");
    throw new FrameworkError(
      "conflict",
      `${target.where} already holds another hive's rows (${where}): migrate into an empty database, or pass --merge to add this hive's rows to them`,
      { foreign },
    );
  }
  return inTransaction(target, () => {
    const tables: Record<string, TableCopy> = {};
    for (const t of COPIED_TABLES) tables[t.name] = copyTable(source, target, t);
    const journals = { verified: 0, lines_copied: 0, lines_present: 0 };
    const broken: BrokenJournal[] = [];
    for (const run of runJournals(source)) {
      const checked = checkJournal(run);
      if (!("bytes" in checked)) {
        broken.push(checked);
        continue;
      }
      journals.verified++;
      copyJournal(target, run.run_id, checked.bytes, journals);
    }
    if (broken.length > 0 && !options.skipBroken) {
      // Thrown inside the transaction: nothing the migration wrote stays.
      throw new FrameworkError(
        "conflict",
        `${broken.length} journal(s) do not verify, so nothing was copied: ${
          broken.map(describeBroken).join("; ")
        }. Restore them from a backup, or pass --skip-broken to copy the rest without them`,
        { broken },
      );
    }
    return { from, to: target.where, tables, journals, broken };
  });
}

function copyJournal(
  target: PgConnection,
  runId: string,
  bytes: Uint8Array,
  journals: MigrateResult["journals"],
): void {
  const lines = decoder.decode(bytes).split("\n");
  lines.pop(); // after the last newline
  const copied = copyJournalLines(target, runId, lines);
  journals.lines_copied += copied;
  journals.lines_present += lines.length - copied;
  const back = journalLinesBytes(target, runId) ?? new Uint8Array();
  if (!sameBytes(back, bytes)) {
    throw new FrameworkError(
      "conflict",
      `The target already holds a different journal for run ${runId}, so nothing was copied: it is another hive's; migrate into an empty database`,
      { run_id: runId },
    );
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
