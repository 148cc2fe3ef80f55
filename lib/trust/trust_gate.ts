/**
 * The trust gate: one function in front of every command that executes harness code (run, serve,
 * control-plane, workbench targets). Trusted folders go on; an untrusted folder is approved with
 * `--approve`, asked about on a terminal, and refused (kind `untrusted`, exit 4) without one — naming
 * the home whose trust store it looked in, since trust is recorded per home (`FRAMEWORK_HOME`, else
 * `~/.framework`) and a process started with another environment (an MCP client's) may look in
 * another.
 *
 * @module
 */

import { FrameworkError } from "../errors.ts";
import { askOnTerminal } from "../terminal.ts";
import { frameworkHome, trustStorePath } from "../paths.ts";
import { trustedEntryFor, trustFolder } from "./store.ts";

/** How the folder came to be trusted. */
export type TrustDecision = "trusted" | "approved" | "confirmed";

/**
 * Proof that the gate let a folder through: only this module makes one, so a run service can require
 * it instead of a caller's word (the control plane checks trust once, before it binds, and hands
 * this to every run).
 */
export interface TrustedFolder {
  /** The folder (absolute, symlinks resolved, as the gate was given it). */
  readonly dir: string;
  /** How it came to be trusted. */
  readonly decision: TrustDecision;
}

const vouched = new WeakSet<TrustedFolder>();

function issue(dir: string, decision: TrustDecision): TrustedFolder {
  const token: TrustedFolder = Object.freeze({ dir, decision });
  vouched.add(token);
  return token;
}

/**
 * Whether a token came from the gate, for this folder.
 *
 * @param token A token, or nothing.
 * @param dir The folder a run is about to use.
 * @returns True only for a token the gate issued for `dir`.
 */
export function vouchesFor(token: TrustedFolder | undefined, dir: string): boolean {
  return !!token && vouched.has(token) && token.dir === dir;
}

/**
 * Refuses to run code in a folder that is not trusted, without asking anyone: a run, an evaluation
 * and anything else that executes harness code on behalf of a caller ask this one question.
 *
 * @example
 * ```ts
 * const dir = await Deno.realPath("./harnesses/hello");
 * await requireTrustFor(dir, "checks/tone.ts#polite", 'The eval set "smoke"');
 * ```
 * @param dir The folder (absolute, symlinks resolved).
 * @param code The first code that would run (a code ref or a command), or undefined for none.
 * @param what What runs it, for the message (e.g. `The harness "bot"`).
 * @param token The trust gate's proof, when the caller holds one.
 * @returns Whether the folder is trusted (also when no code runs).
 * @throws `untrusted` when code would run in a folder that is not trusted.
 */
export async function requireTrustFor(
  dir: string,
  code: string | undefined,
  what: string,
  token?: TrustedFolder,
): Promise<boolean> {
  const trusted = vouchesFor(token, dir) || !!(await trustedEntryFor(dir));
  if (code !== undefined && !trusted) {
    throw new FrameworkError(
      "untrusted",
      `${what} runs code (${code}) but its folder is not trusted: ` +
        `trust it with \`framework trust ${dir}\` (or the workbench's Trust action) or pass --approve`,
      { dir },
    );
  }
  return trusted;
}

/**
 * The gate without a person to ask: a token when the trust store already trusts the folder, else
 * null.
 *
 * @param dir The folder (absolute, symlinks resolved).
 * @returns The token, or null.
 */
export async function trustedAlready(dir: string): Promise<TrustedFolder | null> {
  return (await trustedEntryFor(dir)) ? issue(dir, "trusted") : null;
}

/** Options of {@link ensureTrusted}. */
export interface TrustGateOptions {
  /** `--approve`: trust the folder and go on. */
  approve?: boolean;
  /** Whether a person can be asked (default: stdin is a terminal). */
  interactive?: boolean;
  /** Asks the question and returns the answer (default: stderr prompt, one line from stdin). */
  ask?: (question: string) => Promise<string>;
}

/**
 * Lets the caller go on only for a trusted folder.
 *
 * @example
 * ```ts
 * await ensureTrusted("./harnesses/hello", { approve: Deno.args.includes("--approve") });
 * ```
 * @param dir The harness folder.
 * @param options `approve`, and how to ask.
 * @returns How the folder is trusted.
 */
export async function ensureTrusted(
  dir: string,
  options: TrustGateOptions = {},
): Promise<TrustDecision> {
  return (await trustGate(dir, options)).decision;
}

/**
 * The gate that a run needs passed: like {@link ensureTrusted}, answering the proof a run service
 * takes (see {@link vouchesFor}).
 *
 * @example
 * ```ts
 * const dir = await Deno.realPath("./harnesses/hello");
 * const trusted = await trustGate(dir, { approve: Deno.args.includes("--approve") });
 * ```
 * @param dir The harness folder (absolute, symlinks resolved).
 * @param options `approve`, and how to ask.
 * @returns The proof that the folder is trusted.
 */
export async function trustGate(
  dir: string,
  options: TrustGateOptions = {},
): Promise<TrustedFolder> {
  if (await trustedEntryFor(dir)) return issue(dir, "trusted");
  if (options.approve) {
    await trustFolder(dir);
    return issue(dir, "approved");
  }
  const interactive = options.interactive ?? Deno.stdin.isTerminal();
  if (interactive) {
    const ask = options.ask ?? askOnTerminal;
    const answer = await ask(
      `The folder ${dir} is not trusted. Trusting it lets its harness code run on this machine.\nTrust it? [y/N] `,
    );
    if (/^y(es)?$/i.test(answer)) {
      await trustFolder(dir);
      return issue(dir, "confirmed");
    }
    throw new FrameworkError(
      "untrusted",
      `Refused: the folder ${JSON.stringify(dir)} was not trusted`,
      { dir },
    );
  }
  const home = frameworkHome();
  throw new FrameworkError(
    "untrusted",
    `The folder ${JSON.stringify(dir)} is not trusted in the home ${home} (its trust store ` +
      `${trustStorePath()}) and there is no terminal to ask: pass --approve, or trust it first ` +
      `for that home with \`FRAMEWORK_HOME=${home} framework trust ${dir}\``,
    { dir, home },
  );
}
