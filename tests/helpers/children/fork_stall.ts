/**
 * Child process for crash tests: forks a run, and stops for good when the copy reaches one file
 * (printing "stalled"), so that the test can kill it -9 in the middle of the copy.
 * Usage: fork_stall.ts <run_id> <at> <fork name> <file name to stall on>
 */
import { openHive } from "../../../lib/hive/open.ts";
import { forkRun } from "../../../lib/runs/forks.ts";

const [runId, at, name, stallOn] = Deno.args;

/** Never returns once the copy opens the file: waits to be killed. */
function stall(path: string | URL): Promise<never> | undefined {
  if (!String(path).endsWith(`/${stallOn}`)) return undefined;
  console.log("stalled");
  setInterval(() => {}, 60_000);
  return new Promise<never>(() => {});
}

// The copy reads each file through one of these: whichever it uses stops at the chosen file.
const open = Deno.open;
Deno.open = (path, options) => stall(path) ?? open(path, options);
const copyFile = Deno.copyFile;
Deno.copyFile = (from, to) => stall(from) ?? copyFile(from, to);

await forkRun(openHive(), runId!, { at: Number(at), name: name! }, "cli");
console.log("forked");
