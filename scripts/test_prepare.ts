/**
 * The first half of `deno task test` (the README's test command): makes sure the machine has what
 * the tests need, so the command passes on a fresh machine by itself. Each need is found first
 * (nothing happens when everything is there); what is missing is installed from Debian's packages
 * with `apt-get` (through `sudo` when not root, which asks for a password when it needs one), after
 * saying what will run. Where that cannot be done (no `apt-get`, no `sudo`, an install that failed)
 * it prints one instruction, what to run or set, and exits 1, before any test starts.
 *
 * Today the tests need Chromium (the browser tests drive Debian's `chromium` through
 * playwright-core, never a downloaded browser; `CHROMIUM_PATH` points them at another build) and
 * PostgreSQL's server programs (the hive's tests start a throwaway cluster; `FRAMEWORK_PG_BIN`
 * points them at another build). A new need is one more entry of {@link NEEDS}.
 *
 * @module
 */

import { aptInstall, type AptOptions, type Env, isExecutable, onPath } from "./apt.ts";

/** Something the tests need from the machine. */
export interface Need {
  /** Its name in messages. */
  name: string;
  /** Why the tests need it. */
  why: string;
  /** The Debian package that provides it. */
  debian: string;
  /** What a user can do instead of installing the package. */
  instead?: string;
  /**
   * Where it is on this machine, or undefined when it is missing.
   *
   * @throws When a setting points at something unusable (installing would not help).
   */
  find(env: Env): string | undefined;
}

/**
 * The Chromium the browser tests launch: `CHROMIUM_PATH` when it is set, else `chromium` (Debian's
 * package) or `chromium-browser` on the PATH.
 *
 * @param env The environment.
 * @returns Its path, or undefined when there is none.
 * @throws When `CHROMIUM_PATH` is set but is not an executable file.
 */
export function findChromium(env: Env): string | undefined {
  const chosen = env.get("CHROMIUM_PATH");
  if (chosen) {
    if (isExecutable(chosen)) return chosen;
    throw new Error(
      `CHROMIUM_PATH=${chosen} is not an executable file: point it at a Chromium executable, or unset it to use Debian's chromium.`,
    );
  }
  return onPath("chromium", env) ?? onPath("chromium-browser", env);
}

/**
 * The folder of PostgreSQL's server programs the hive's tests start a cluster with:
 * `FRAMEWORK_PG_BIN` when it is set, else the newest `/usr/lib/postgresql/<n>/bin` (Debian's).
 *
 * @param env The environment.
 * @returns The folder, or undefined when there is none.
 * @throws When `FRAMEWORK_PG_BIN` is set but holds no `initdb`.
 */
export function findPostgres(env: Env): string | undefined {
  const chosen = env.get("FRAMEWORK_PG_BIN");
  if (chosen) {
    if (isExecutable(`${chosen}/initdb`)) return chosen;
    throw new Error(
      `FRAMEWORK_PG_BIN=${chosen} holds no initdb: point it at PostgreSQL's bin folder, or unset it to use Debian's postgresql.`,
    );
  }
  try {
    const versions = [...Deno.readDirSync("/usr/lib/postgresql")].map((e) => e.name)
      .filter((n) => /^\d+$/.test(n)).sort((a, b) => Number(b) - Number(a));
    for (const v of versions) {
      if (isExecutable(`/usr/lib/postgresql/${v}/bin/initdb`)) {
        return `/usr/lib/postgresql/${v}/bin`;
      }
    }
  } catch { /* not installed */ }
  return undefined;
}

/** What the tests need, in the order they are checked. */
export const NEEDS: readonly Need[] = [
  {
    name: "Chromium",
    why: "the browser tests drive it through playwright-core",
    debian: "chromium",
    instead: "set CHROMIUM_PATH to a Chromium executable",
    find: findChromium,
  },
  {
    name: "PostgreSQL",
    why: "the hive's tests run against a throwaway PostgreSQL cluster as well as SQLite",
    debian: "postgresql",
    instead: "set FRAMEWORK_PG_BIN to a folder with PostgreSQL's initdb and pg_ctl",
    find: findPostgres,
  },
];

/** How the preparation went: what it ran, and the instruction when the machine is not ready. */
export interface Prepared {
  /** The commands it ran (each as its words). */
  ran: string[][];
  /** Undefined when every need is met; else the one instruction for the user. */
  problem?: string;
}

/**
 * Finds every need and installs the missing ones with `apt-get`.
 *
 * @param needs What the tests need ({@link NEEDS}).
 * @param options The environment, whether root, where progress goes.
 * @returns What ran, and the instruction when something is still missing.
 */
export async function prepare(needs: readonly Need[], options: AptOptions): Promise<Prepared> {
  const missing = (list: readonly Need[]) => list.filter((n) => !n.find(options.env));
  let lacking: Need[];
  try {
    lacking = missing(needs);
  } catch (err) {
    return { ran: [], problem: (err as Error).message };
  }
  if (!lacking.length) return { ran: [] };

  const packages = lacking.map((n) => n.debian);
  const what = lacking.map((n) => `${n.name} (${n.why})`).join(", ");
  const instead = lacking.map((n) => n.instead).filter(Boolean).join("; ");
  const instruction = (why: string) =>
    `The tests need ${what}, and ${why}. Install it (on Debian: \`sudo apt-get install -y ${
      packages.join(" ")
    }\`)${instead ? `, or ${instead}` : ""}, then run the tests again.`;

  const { ran, failure } = await aptInstall(packages, `The tests need ${what}`, options);
  if (failure) return { ran, problem: instruction(failure) };
  try {
    const still = missing(lacking);
    if (!still.length) return { ran };
    const names = still.map((n) => n.name).join(", ");
    return { ran, problem: instruction(`after apt-get install there is still no ${names}`) };
  } catch (err) {
    return { ran, problem: (err as Error).message };
  }
}

if (import.meta.main) {
  const { problem } = await prepare(NEEDS, {
    env: Deno.env,
    root: Deno.uid() === 0,
    say: (line) => console.error(line),
  });
  if (problem) {
    console.error(problem);
    Deno.exit(1);
  }
}
