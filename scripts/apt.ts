/**
 * Debian's packages for the development tools (the test command's Chromium, the benchmarks' `wrk`):
 * finding an executable on the PATH, and installing packages with `apt-get`, through `sudo` when not
 * root (sudo asks for a password when it needs one). Never a download from anywhere else.
 *
 * @module
 */

import { join } from "node:path";

/** Reads the environment (`Deno.env`, or a plain map in tests). */
export interface Env {
  get(name: string): string | undefined;
}

/**
 * An executable file named `name` in a folder of the PATH.
 *
 * @param name The command.
 * @param env The environment (its PATH).
 * @returns Its path, or undefined.
 */
export function onPath(name: string, env: Env): string | undefined {
  for (const dir of (env.get("PATH") ?? "").split(":")) {
    if (dir && isExecutable(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

/**
 * Whether a path is an executable file.
 *
 * @param path The path.
 * @returns True for a file with an execute bit.
 */
export function isExecutable(path: string): boolean {
  try {
    const info = Deno.statSync(path);
    return info.isFile && ((info.mode ?? 0o111) & 0o111) !== 0;
  } catch {
    return false;
  }
}

/** The options of {@link aptInstall}. */
export interface AptOptions {
  env: Env;
  /** Whether this process runs as root (then `apt-get` runs without `sudo`). */
  root: boolean;
  /** Writes a progress line: why, then each command before it runs. */
  say(line: string): void;
}

/**
 * Installs Debian packages: `apt-get update`, then `apt-get install -y` (non-interactive), said
 * before it starts (with why) and each command before it runs.
 *
 * @param packages The Debian packages.
 * @param why What needs them, in the announcement (e.g. "The benchmarks need wrk").
 * @param options The environment, whether root, where progress goes.
 * @returns The commands it ran, and why it could not install (no apt-get, no sudo, a command that
 *   failed), undefined when both commands succeeded.
 */
export async function aptInstall(
  packages: readonly string[],
  why: string,
  options: AptOptions,
): Promise<{ ran: string[][]; failure?: string }> {
  const { env, root, say } = options;
  const ran: string[][] = [];
  const aptGet = onPath("apt-get", env);
  if (!aptGet) return { ran, failure: "this machine has no apt-get to install it" };
  const sudo = root ? undefined : onPath("sudo", env);
  if (!root && !sudo) return { ran, failure: "installing needs root, and there is no sudo here" };
  say(`${why}: installing ${packages.join(" ")} from Debian's packages.`);
  for (const args of [["update", "-qq"], ["install", "-y", "-qq", ...packages]]) {
    const shown = `${sudo ? "sudo " : ""}apt-get ${args[0]}`;
    say(`$ ${shown} ${args.slice(1).join(" ")}`);
    const words = [...(sudo ? [sudo] : []), aptGet, ...args];
    ran.push(words);
    const status = await new Deno.Command(words[0]!, {
      args: words.slice(1),
      env: { DEBIAN_FRONTEND: "noninteractive" },
      stdin: "inherit",
      stdout: "inherit",
      stderr: "inherit",
    }).spawn().status;
    if (!status.success) {
      return { ran, failure: `\`${shown}\` failed (exit ${status.code})` };
    }
  }
  return { ran };
}
