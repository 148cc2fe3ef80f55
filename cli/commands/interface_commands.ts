/**
 * Verbs that ship a harness: `generate` writes its page, `package` its deployable archive (and
 * `package --verify` checks one).
 *
 * @module
 */

import type { Command } from "commander";
import { verbDescription } from "../verb_table.ts";
import { badInput } from "../../lib/errors.ts";
import { generateInterface } from "../../lib/interface/generate.ts";
import { INTERFACE_INPUTS_TEXT, isInterfaceInput } from "../../lib/interface_inputs.ts";
import { createPackage, verifyPackage } from "../../lib/package/package.ts";
import { type GlobalOptions, runVerb } from "../output.ts";

/**
 * Registers `generate` and `package`.
 *
 * @param program The root command.
 */
export function registerInterfaceCommands(program: Command): void {
  program.command("generate")
    .description(verbDescription("generate"))
    .argument("<dir>", "the harness folder")
    .option(
      "--input <kind>",
      `what the page asks for: ${INTERFACE_INPUTS_TEXT} (default: interface.input)`,
    )
    .option("--force", "replace an existing page")
    .option("--json", "print the ok-wrapped JSON result")
    .action((dir: string, o: GlobalOptions & { input?: string; force?: boolean }) =>
      runVerb(o, async () => {
        if (o.input !== undefined && !isInterfaceInput(o.input)) {
          throw badInput(
            `--input must be ${INTERFACE_INPUTS_TEXT}, got ${JSON.stringify(o.input)}`,
          );
        }
        const r = await generateInterface(dir, {
          ...(o.input ? { input: o.input } : {}),
          force: !!o.force,
        });
        return {
          data: r,
          text:
            `Wrote ${r.path} (${r.input} input, ${r.bytes} bytes). Preview it in the workbench's Use tab, or serve it with framework control-plane (GET /).`,
        };
      })
    );

  program.command("package")
    .description(verbDescription("package"))
    .argument("[dir]", "the harness folder")
    .option("--out <file>", "where to write it (default <id>-<version>.tar.gz here)")
    .option("--verify <file>", "check every file of a package against its framework.lock.json")
    .option("--json", "print the ok-wrapped JSON result")
    .action((dir: string | undefined, o: GlobalOptions & { out?: string; verify?: string }) =>
      runVerb(o, async () => {
        if (o.verify !== undefined) {
          const lock = await verifyPackage(o.verify);
          return {
            data: { verified: true, ...lock },
            text: `${o.verify}: ${lock.files.length} files match their hashes (${lock.id} ${
              lock.spec_version.slice(0, 12)
            })`,
          };
        }
        if (dir === undefined) throw badInput("Give the harness folder, or --verify FILE");
        const r = await createPackage(dir, o.out);
        return {
          data: { path: r.path, bytes: r.bytes, ...r.lock },
          text:
            `Wrote ${r.path}: ${r.lock.files.length} files, ${r.bytes} bytes. Deploy: see DEPLOY.md inside.`,
        };
      })
    );
}
