/**
 * The `framework` command: parses arguments, calls one library function per verb, and prints the
 * ok-wrapped JSON (`--json`) or human text. Exit codes: 0 success, 1 internal, 2 bad input or usage,
 * 3 a run that did not succeed, 4 untrusted folder, 5 unauthorized or forbidden.
 *
 * @example Install and use
 * ```sh
 * deno install -g -A -n framework cli.ts
 * framework init ./harnesses/hello
 * framework validate ./harnesses/hello --json
 * ```
 *
 * @module
 */

import { Command, CommanderError } from "commander";
import { registerControlPlaneCommand } from "./cli/commands/control_plane_command.ts";
import { registerEvolveCommands } from "./cli/commands/evolve_commands.ts";
import { registerWorkbenchCommand } from "./cli/commands/workbench_command.ts";
import { registerKeysCommands } from "./cli/commands/keys_commands.ts";
import { registerRunCommands } from "./cli/commands/run_commands.ts";
import { registerForkCommands } from "./cli/commands/fork_commands.ts";
import { registerEvalCommands } from "./cli/commands/eval_commands.ts";
import { registerInterfaceCommands } from "./cli/commands/interface_commands.ts";
import { registerMcpCommands } from "./cli/commands/mcp_commands.ts";
import { registerSpecCommands } from "./cli/commands/spec_commands.ts";
import { registerTrustCommand } from "./cli/commands/trust_command.ts";
import { reportError, writeOut } from "./cli/output.ts";
import { okEnvelope } from "./lib/envelope.ts";
import { badInput } from "./lib/errors.ts";
import { FRAMEWORK_VERSION } from "./lib/version.ts";

/**
 * Builds the command tree.
 *
 * @returns The root command.
 */
export function buildProgram(): Command {
  const program = new Command("framework")
    .description("Build, run, deploy and improve LLM agent harnesses")
    .version(FRAMEWORK_VERSION, "--version", "print the framework version")
    .configureOutput({ outputError: () => {} })
    .exitOverride();
  registerSpecCommands(program);
  registerTrustCommand(program);
  registerRunCommands(program);
  registerForkCommands(program);
  registerEvalCommands(program);
  registerInterfaceCommands(program);
  registerMcpCommands(program);
  registerKeysCommands(program);
  registerControlPlaneCommand(program);
  registerEvolveCommands(program);
  registerWorkbenchCommand(program);
  return program;
}

/** Every command of the tree, the root included. */
function allCommands(cmd: Command): Command[] {
  return [cmd, ...cmd.commands.flatMap((c) => allCommands(c as Command))];
}

/**
 * Runs the CLI with arguments (without the executable).
 *
 * @param args The arguments.
 */
export async function main(args: string[]): Promise<void> {
  const json = args.includes("--json");
  const program = buildProgram();
  // With --json, help and version text become the payload of one ok-wrapped document.
  let captured = "";
  if (json) {
    const capture = { writeOut: (s: string) => void (captured += s), outputError: () => {} };
    for (const cmd of allCommands(program)) cmd.configureOutput(capture);
  }
  try {
    if (args.length === 0) {
      program.outputHelp();
      Deno.exit(2);
    }
    await program.parseAsync(args, { from: "user" });
  } catch (err) {
    if (err instanceof CommanderError) {
      if (
        err.code === "commander.helpDisplayed" || err.code === "commander.version" ||
        err.code === "commander.help"
      ) {
        if (json) {
          const data = err.code === "commander.version"
            ? { version: FRAMEWORK_VERSION }
            : { help: captured };
          writeOut(JSON.stringify(okEnvelope(data)));
        }
        Deno.exit(0);
      }
      // Name the deepest known verb in the hint: `framework keys sign --help`.
      const words: string[] = [];
      let cmd: Command = program;
      for (const a of args) {
        const sub = cmd.commands.find((c) => c.name() === a) as Command | undefined;
        if (!sub) break;
        words.push(a);
        cmd = sub;
      }
      const help = `framework ${[...words, "--help"].join(" ")}`;
      const message = err.message.replace(/^error: /, "");
      Deno.exit(reportError(badInput(`Usage error: ${message}; see \`${help}\``), json));
    }
    Deno.exit(reportError(err, json));
  }
}

if (import.meta.main) await main(Deno.args);
