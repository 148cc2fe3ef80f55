/**
 * `deno task install` (or, on a machine with only Node and npm, `npx -y deno@2.9.6 task install`):
 * puts a `framework` command on the PATH that runs this checkout's `cli.ts` with its `deno.json`.
 * The command is a small shell script that `exec`s the Deno binary this installer ran on (the one
 * `npx` unpacked, on a machine with only Node and npm), so the command's process IS the framework:
 * `kill $!` or Ctrl-C reach it directly (`npx` forwards no SIGTERM to the process it starts). When
 * that binary is gone (an `npx` cache cleaned), the script asks `npx` for the same Deno version's
 * binary and `exec`s that one: `npx` only answers the path, it never stays between the user and the
 * framework.
 *
 * It is written to `$FRAMEWORK_BIN_DIR`, else `~/.local/bin`. Running it again updates the command; a
 * `framework` there that this installer did not write is never replaced.
 *
 * @module
 */

import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The first line after the shebang marks a script this installer wrote. */
const MARK = "# framework command installed by scripts/install.ts";

/**
 * The `deno run` flags of the `framework` task in deno.json (permissions and V8 flags), so the
 * command runs exactly as `deno task framework` does; `--quiet` is added.
 *
 * @param denoJson The text of deno.json.
 * @returns The flags, or throws when the task is not `deno run <flags> cli.ts`.
 */
export function frameworkTaskFlags(denoJson: string): string {
  const task = (JSON.parse(denoJson) as { tasks?: Record<string, string> }).tasks?.framework ?? "";
  const m = /^deno run (.+) cli\.ts$/.exec(task);
  if (!m) throw new Error(`deno.json's framework task is not "deno run <flags> cli.ts": ${task}`);
  return `${m[1]} --quiet`;
}

function quote(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}

/**
 * The shell script of the `framework` command: it `exec`s `deno` (so signals reach the framework
 * itself), the installer's binary when it is still there, else the binary `npx` holds for the same
 * version.
 *
 * @param checkout The checkout (absolute).
 * @param deno The Deno binary to run (absolute; `Deno.execPath()` of the installer).
 * @param denoVersion The Deno version to ask `npx -y deno@…` for when that binary is gone.
 * @param flags The `deno run` flags ({@link frameworkTaskFlags}).
 * @returns The script.
 */
export function shimScript(
  checkout: string,
  deno: string,
  denoVersion: string,
  flags: string,
): string {
  return `#!/bin/sh
${MARK}
# Runs the framework of ${checkout}. Update it with \`deno task install\` there.
CHECKOUT=${quote(checkout)}
INSTALLED=${quote(deno)}
DENO="$INSTALLED"
if [ ! -x "$DENO" ]; then
  # The installer's Deno is gone: ask npx where the same version is (npx only answers the path).
  DENO="$(npx -y deno@${denoVersion} eval --no-config --quiet 'console.log(Deno.execPath())')"
  if [ ! -x "$DENO" ]; then
    echo "framework: no Deno ${denoVersion} to run ($INSTALLED is gone and npx gave none); run 'npx -y deno@${denoVersion} task install' in $CHECKOUT again" >&2
    exit 127
  fi
fi
exec "$DENO" run ${flags} --config "$CHECKOUT/deno.json" "$CHECKOUT/cli.ts" "$@"
`;
}

async function main(): Promise<number> {
  const checkout = dirname(dirname(fileURLToPath(import.meta.url)));
  const home = Deno.env.get("HOME") ?? Deno.env.get("USERPROFILE");
  const binDir = Deno.env.get("FRAMEWORK_BIN_DIR") || (home ? join(home, ".local", "bin") : "");
  if (!binDir) {
    console.error("No HOME: set FRAMEWORK_BIN_DIR to the folder the command should go to.");
    return 2;
  }
  const target = join(binDir, "framework");
  try {
    const existing = await Deno.readTextFile(target);
    if (!existing.includes(MARK)) {
      console.error(
        `${target} exists and was not written by this installer; move it away, or set FRAMEWORK_BIN_DIR to another folder.`,
      );
      return 2;
    }
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  await Deno.mkdir(binDir, { recursive: true });
  const temp = `${target}.tmp-${crypto.randomUUID()}`;
  const flags = frameworkTaskFlags(await Deno.readTextFile(join(checkout, "deno.json")));
  await Deno.writeTextFile(temp, shimScript(checkout, Deno.execPath(), Deno.version.deno, flags), {
    mode: 0o755,
  });
  await Deno.chmod(temp, 0o755);
  await Deno.rename(temp, target);
  console.log(`Installed ${target} (runs ${join(checkout, "cli.ts")} with ${Deno.execPath()}).`);
  const onPath = (Deno.env.get("PATH") ?? "").split(":").some((p) => p === binDir);
  if (!onPath) {
    console.log(`${binDir} is not on your PATH; add it, e.g.:`);
    console.log(`  echo 'export PATH="${binDir}:$PATH"' >> ~/.profile && . ~/.profile`);
  }
  console.log("Try: framework --help");
  return 0;
}

if (import.meta.main) Deno.exit(await main());
