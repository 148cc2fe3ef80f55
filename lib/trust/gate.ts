/**
 * The trust gate: one function in front of every command that executes harness code (run, serve,
 * control-plane, workbench targets). Trusted folders go on; an untrusted folder is approved with
 * `--approve`, asked about on a terminal, and refused (kind `untrusted`, exit 4) without one.
 *
 * @module
 */

import { FrameworkError } from "../errors.ts";
import { trustedEntryFor, trustFolder } from "./store.ts";

/** How the folder came to be trusted. */
export type TrustDecision = "trusted" | "approved" | "confirmed";

/** Options of {@link ensureTrusted}. */
export interface TrustGateOptions {
  /** `--approve`: trust the folder and go on. */
  approve?: boolean;
  /** Whether a person can be asked (default: stdin is a terminal). */
  interactive?: boolean;
  /** Asks the question and returns the answer (default: stderr prompt, one line from stdin). */
  ask?: (question: string) => Promise<string>;
}

async function askOnTerminal(question: string): Promise<string> {
  await Deno.stderr.write(new TextEncoder().encode(question));
  const buf = new Uint8Array(1024);
  let line = "";
  while (!line.includes("\n")) {
    const n = await Deno.stdin.read(buf);
    if (n === null) break;
    line += new TextDecoder().decode(buf.subarray(0, n));
  }
  return line.trim();
}

/**
 * Lets the caller go on only for a trusted folder.
 *
 * @example
 * ```ts
 * await ensureTrusted("./harnesses/hello", { approve: flags.approve });
 * ```
 * @param dir The harness folder.
 * @param options `approve`, and how to ask.
 * @returns How the folder is trusted.
 */
export async function ensureTrusted(
  dir: string,
  options: TrustGateOptions = {},
): Promise<TrustDecision> {
  if (await trustedEntryFor(dir)) return "trusted";
  if (options.approve) {
    await trustFolder(dir);
    return "approved";
  }
  const interactive = options.interactive ?? Deno.stdin.isTerminal();
  if (interactive) {
    const ask = options.ask ?? askOnTerminal;
    const answer = await ask(
      `The folder ${dir} is not trusted. Trusting it lets its harness code run on this machine.\nTrust it? [y/N] `,
    );
    if (/^y(es)?$/i.test(answer)) {
      await trustFolder(dir);
      return "confirmed";
    }
    throw new FrameworkError(
      "untrusted",
      `Refused: the folder ${JSON.stringify(dir)} was not trusted`,
      { dir },
    );
  }
  throw new FrameworkError(
    "untrusted",
    `The folder ${
      JSON.stringify(dir)
    } is not trusted and there is no terminal to ask: pass --approve, ` +
      `or trust it first with \`framework trust ${dir}\``,
    { dir },
  );
}
