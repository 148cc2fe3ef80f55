/**
 * The `framework` command: parses arguments, calls one library function per verb, and prints the
 * ok-wrapped JSON (`--json`) or human text. Exit codes: 0 success, 1 internal, 2 bad input or usage,
 * 3 a run that did not succeed, 4 untrusted folder, 5 unauthorized or forbidden.
 *
 * The root help and version (`framework`, `framework --help`, `framework --version`, with or without
 * `--json`) are answered here from the verb table; any other command line loads the command-line
 * parser and only the verb it names (`cli/main.ts`).
 *
 * @example Install and use
 * ```sh
 * deno install -g -A --v8-flags=--memory-saver-mode -n framework cli.ts
 * framework init ./harnesses/hello
 * framework validate ./harnesses/hello --json
 * ```
 *
 * @module
 */

import { writeOut } from "./cli/output.ts";
import { rootHelp } from "./cli/root_help.ts";
import { okEnvelope } from "./lib/envelope.ts";
import { FRAMEWORK_VERSION } from "./lib/version.ts";

/**
 * Runs the CLI with arguments (without the executable).
 *
 * @param args The arguments.
 */
export async function main(args: string[]): Promise<void> {
  const rest = args.filter((a) => a !== "--json");
  const json = rest.length < args.length;
  const ask = rest.length === 0 ? (json ? null : "usage") : rest.length === 1 ? rest[0] : null;
  if (ask === "usage" || ask === "--help" || ask === "-h") {
    writeOut(json ? JSON.stringify(okEnvelope({ help: rootHelp() })) : rootHelp());
    // A bare `framework` is a usage error after its help, as commander does.
    Deno.exit(ask === "usage" ? 2 : 0);
  }
  if (ask === "--version") {
    writeOut(json ? JSON.stringify(okEnvelope({ version: FRAMEWORK_VERSION })) : FRAMEWORK_VERSION);
    Deno.exit(0);
  }
  // Not a literal: Deno walks every literal import (dynamic ones too) before the first line runs,
  // which would load the whole command line for the help above. `deno task compile` names the
  // module with --include so a compiled binary still holds it.
  const entry = new URL(CLI_MAIN, import.meta.url).href;
  await (await import(entry)).main(args);
}

/** The command-line parser and its verbs, loaded only when a verb runs. */
const CLI_MAIN = "./cli/main.ts";

if (import.meta.main) await main(Deno.args);
