/**
 * `framework hive migrate`: copy a SQLite hive and its journals into PostgreSQL
 * (lib/journal/hive_migrate.ts; docs/deploy.md).
 *
 * @module
 */

import type { Command } from "commander";
import { verbDescription } from "../verb_table.ts";
import { migrateHive, type MigrateResult } from "../../lib/journal/hive_migrate.ts";
import { type GlobalOptions, runVerb } from "../output.ts";

interface MigrateFlags extends GlobalOptions {
  to: string;
  from?: string;
  merge?: boolean;
  skipBroken?: boolean;
}

/**
 * Registers `hive` and its verbs.
 *
 * @param program The root command.
 */
export function registerHiveCommands(program: Command): void {
  const hive = program.command("hive").description(verbDescription("hive"));
  hive.command("migrate")
    .description(
      "Copy a SQLite hive and its journals into PostgreSQL, verifying every journal (run it again: nothing is copied twice)",
    )
    .requiredOption("--to <url>", "the PostgreSQL hive: postgres://user:password@host:5432/db")
    .option("--from <path>", "the SQLite hive file (default <home>/hive.db)")
    .option("--merge", "copy even when the target holds another hive's rows")
    .option(
      "--skip-broken",
      "copy the rest when journals do not verify (they are named; exit 2)",
    )
    .option("--json", "print the ok-wrapped JSON result")
    .action((o: MigrateFlags) =>
      runVerb(o, () => {
        const data = migrateHive({
          to: o.to,
          ...(o.from !== undefined ? { from: o.from } : {}),
          merge: !!o.merge,
          skipBroken: !!o.skipBroken,
        });
        return Promise.resolve({
          data,
          text: migrateText(data),
          exitCode: data.broken.length > 0 ? 2 : 0,
        });
      })
    );
}

function migrateText(r: MigrateResult): string {
  const rows = Object.entries(r.tables)
    .filter(([, c]) => c.copied + c.present > 0)
    .map(([t, c]) =>
      `  ${t}: ${c.copied} copied${c.present ? `, ${c.present} already there` : ""}`
    );
  return [
    `Migrated ${r.from} to ${r.to}`,
    ...rows,
    `  journals: ${r.journals.verified} verified, ${r.journals.lines_copied} lines copied${
      r.journals.lines_present ? `, ${r.journals.lines_present} already there` : ""
    }`,
    ...r.broken.map((b) =>
      `  NOT COPIED: the journal of ${b.run_id} (${b.path}) ${
        b.problem === "missing"
          ? "is missing"
          : b.problem === "head"
          ? "ends before the head the hive recorded"
          : `is broken at line ${b.broken_at}`
      }`
    ),
  ].join("\n");
}
