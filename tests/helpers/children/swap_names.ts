/**
 * Child process for time-of-check/time-of-use tests: swaps one name, as fast as it can, between an
 * ordinary file, a symbolic link to a secret file and a hard link of it, each put in place by an
 * atomic rename (so the name always exists). Prints "swapping" once it has started; stops when it is
 * killed, or after two minutes.
 * Usage: swap_names.ts <folder> <name> <secret's name>
 */
import { join } from "node:path";

const [folder, name, secret] = Deno.args as [string, string, string];
const target = join(folder, name);
const tmp = join(folder, `.${name}.swap`);
const deadline = Date.now() + 120_000;
console.log("swapping");
for (let i = 0; Date.now() < deadline; i++) {
  try {
    Deno.removeSync(tmp);
  } catch {
    // not there
  }
  if (i % 2 === 0) Deno.writeTextFileSync(tmp, "an ordinary note\n");
  else if (i % 4 === 1) Deno.symlinkSync(secret, tmp);
  else Deno.linkSync(join(folder, secret), tmp);
  Deno.renameSync(tmp, target);
}
