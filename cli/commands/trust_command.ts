/**
 * `framework trust`: list, add and revoke trusted harness folders.
 *
 * @module
 */

import type { Command } from "commander";
import { verbDescription } from "../verb_table.ts";
import { badInput } from "../../lib/errors.ts";
import { listTrusted, revokeTrust, trustFolder } from "../../lib/trust/store.ts";
import { type GlobalOptions, runVerb } from "../output.ts";

/**
 * Registers `trust`.
 *
 * @param program The root command.
 */
export function registerTrustCommand(program: Command): void {
  program.command("trust")
    .description(verbDescription("trust"))
    .argument("[dir]", "the folder to trust (its subfolders are trusted too)")
    .option("--list", "list trusted folders")
    .option("--revoke <dir>", "stop trusting a folder")
    .option("--json", "print the ok-wrapped JSON result")
    .action((dir: string | undefined, o: GlobalOptions & { list?: boolean; revoke?: string }) =>
      runVerb(o, async () => {
        const chosen = [dir !== undefined, !!o.list, o.revoke !== undefined].filter(Boolean).length;
        if (chosen !== 1) {
          throw badInput("Give exactly one of: a folder to trust, --list, or --revoke <dir>");
        }
        if (o.list) {
          const trusted = await listTrusted();
          return {
            data: { trusted },
            text: trusted.length
              ? trusted.map((t) => `${t.path}  (since ${t.trusted_at})`).join("\n")
              : "No trusted folders.",
          };
        }
        if (o.revoke !== undefined) {
          const r = await revokeTrust(o.revoke);
          return { data: { revoked: r.path }, text: `No longer trusted: ${r.path}` };
        }
        const r = await trustFolder(dir!);
        return {
          data: { trusted: r.path, added: r.added },
          text: r.added ? `Trusted: ${r.path}` : `Already trusted: ${r.path}`,
        };
      })
    );
}
