/**
 * The `framework` command line with commander: parses arguments, calls one library function per
 * verb, and prints the ok-wrapped JSON (`--json`) or human text. `cli.ts` hands every command line to
 * it except the root help and version, which it answers without loading commander.
 *
 * @module
 */

import { Command, CommanderError } from "commander";
import { ROOT_DESCRIPTION } from "./root_help.ts";
import { groupOf, VERB_GROUPS } from "./verbs.ts";
import { reportError, writeOut } from "./output.ts";
import { okEnvelope } from "../lib/envelope.ts";
import { badInput } from "../lib/errors.ts";
import { FRAMEWORK_VERSION } from "../lib/version.ts";

function root(): Command {
  return new Command("framework")
    .description(ROOT_DESCRIPTION)
    .version(FRAMEWORK_VERSION, "--version", "print the framework version")
    // A verb's options belong to the verb, and a subcommand's to the subcommand (`eval add --set`
    // is add's, not eval's); every command inherits this.
    .enablePositionalOptions()
    .configureOutput({ outputError: () => {} })
    .exitOverride();
}

/**
 * Builds the whole command tree (every verb's module loaded).
 *
 * @returns The root command.
 */
export async function buildProgram(): Promise<Command> {
  const program = root();
  for (const group of VERB_GROUPS) (await group.load())(program);
  return program;
}

/**
 * Builds the tree a command line needs: the verb it names, loaded with its own dependencies only;
 * without a known verb (`--help`, `--version`, a typo), the verbs' names and descriptions alone.
 *
 * @param args The arguments.
 * @returns The root command.
 */
export async function programFor(args: string[]): Promise<Command> {
  const words = args.filter((a) => !a.startsWith("-"));
  const group = groupOf(words[0] === "help" ? words[1] : words[0]);
  const program = root();
  if (group) {
    (await group.load())(program);
    return program;
  }
  for (const g of VERB_GROUPS) {
    for (const [name, description] of g.verbs) program.command(name).description(description);
  }
  return program;
}

/** Every command of the tree, the root included. */
function allCommands(cmd: Command): Command[] {
  return [cmd, ...cmd.commands.flatMap((c) => allCommands(c as Command))];
}

/**
 * Takes `--hive <url>` (or `--hive=<url>`) out of the arguments and points the hive at it for this
 * process and the processes it starts (`FRAMEWORK_HIVE_URL`), so `run`, `control-plane`, `workbench`,
 * `stats`, `trace` and every other verb share one store (docs/cli.md).
 *
 * @param args The arguments.
 * @returns The arguments without the flag.
 */
function takeHiveFlag(args: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--") {
      out.push(...args.slice(i));
      break;
    }
    if (a === "--hive" && i + 1 < args.length) {
      Deno.env.set("FRAMEWORK_HIVE_URL", args[++i]!);
    } else if (a.startsWith("--hive=")) {
      Deno.env.set("FRAMEWORK_HIVE_URL", a.slice("--hive=".length));
    } else out.push(a);
  }
  return out;
}

/**
 * Runs the CLI with arguments (without the executable).
 *
 * @param args The arguments.
 */
export async function main(args: string[]): Promise<void> {
  args = takeHiveFlag(args);
  const json = args.includes("--json");
  const program = await programFor(args);
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
