/**
 * How the CLI prints: with `--json`, exactly one ok-wrapped document on stdout; without, human text on
 * stdout and errors on stderr. Exit codes come from the error kind (lib/errors.ts).
 *
 * @module
 */

import { asFrameworkError, EXIT_CODE } from "../lib/errors.ts";
import { settleBackground } from "../lib/background.ts";
import { errorEnvelope, okEnvelope } from "../lib/envelope.ts";

/** Options shared by every verb. */
export interface GlobalOptions {
  json?: boolean;
}

/** What a verb returns for printing. */
export interface Outcome<T> {
  data: T;
  /** Human text (omit to print nothing). */
  text?: string;
  /** Exit code (default 0). */
  exitCode?: number;
}

/**
 * Writes a line to stdout.
 *
 * @param line The text (a newline is added).
 */
export function writeOut(line: string): void {
  Deno.stdout.writeSync(new TextEncoder().encode(line.endsWith("\n") ? line : line + "\n"));
}

/**
 * Writes a line to stderr.
 *
 * @param line The text (a newline is added).
 */
export function writeErr(line: string): void {
  Deno.stderr.writeSync(new TextEncoder().encode(line.endsWith("\n") ? line : line + "\n"));
}

/**
 * Prints a failure and returns its exit code. Internal errors are logged with their cause on stderr.
 *
 * @param err The thrown value.
 * @param json Whether `--json` was given.
 * @returns The exit code.
 */
export function reportError(err: unknown, json: boolean): number {
  const e = asFrameworkError(err);
  if (e.kind === "internal") {
    const cause = (e as { cause?: unknown }).cause ?? err;
    writeErr(
      `internal error: ${cause instanceof Error ? cause.stack ?? cause.message : String(cause)}`,
    );
  }
  if (json) writeOut(JSON.stringify(errorEnvelope(e)));
  else writeErr(`error: ${e.message}`);
  return EXIT_CODE[e.kind];
}

/**
 * Runs a verb and prints its outcome or its error, then exits with the right code.
 *
 * @param options The verb's options (for `--json`).
 * @param fn The verb.
 */
export async function runVerb(
  options: GlobalOptions,
  fn: () => Promise<Outcome<unknown>>,
): Promise<never> {
  const json = !!options.json;
  let code: number;
  try {
    const outcome = await fn();
    if (json) writeOut(JSON.stringify(okEnvelope(outcome.data)));
    else if (outcome.text !== undefined && outcome.text !== "") writeOut(outcome.text);
    code = outcome.exitCode ?? 0;
  } catch (err) {
    code = reportError(err, json);
  }
  // Background work (an automatic proposal after a failed run) finishes before the process exits.
  await settleBackground();
  Deno.exit(code);
}
