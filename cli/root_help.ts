/**
 * The root help of `framework` without loading commander: `framework`, `framework --help` and
 * `framework --version` are answered from the verb table alone, in the layout commander prints (a
 * test holds the two equal), so the commonest first command starts as fast as a bare script.
 *
 * @module
 */

import { VERB_TABLE } from "./verb_table.ts";

/** The root command's description. */
export const ROOT_DESCRIPTION = "Build, run, deploy and improve LLM agent harnesses";

/** The width commander wraps help to when the output is not a terminal. */
const HELP_WIDTH = 80;

/**
 * The root help text, as commander formats it for a non-terminal output.
 *
 * @returns The text, ending with a newline.
 */
export function rootHelp(): string {
  const options: [string, string][] = [
    ["--version", "print the framework version"],
    ["-h, --help", "display help for command"],
  ];
  const commands: [string, string][] = [
    ...VERB_TABLE.flatMap((g) => g.verbs.map(([n, d]) => [n, d] as [string, string])),
    ["help [command]", "display help for command"],
  ];
  const termWidth = Math.max(...[...options, ...commands].map(([t]) => t.length));
  const item = ([term, description]: [string, string]) => {
    const lead = 2 + termWidth + 2;
    const lines = wrap(description, HELP_WIDTH - lead);
    return `  ${term.padEnd(termWidth)}  ${lines.join(`\n${" ".repeat(lead)}`)}`;
  };
  return [
    "Usage: framework [options] [command]",
    "",
    ROOT_DESCRIPTION,
    "",
    "Options:",
    ...options.map(item),
    "",
    "Commands:",
    ...commands.map(item),
    "",
  ].join("\n");
}

/** Greedy word wrap to a width (a word longer than the width stands on its own line). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}
