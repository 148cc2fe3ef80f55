/**
 * A scratch copy of this checkout's source (the command, the library, the servers, the UI), for tests
 * that must run the real command against a changed file of the framework itself (a broken bundled
 * copilot) or whose state folder is the checkout's own (`.framework-dev/`).
 *
 * @module
 */

import { join } from "node:path";
import { tempDir } from "./temp.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

/** What a checkout needs to run `cli.ts` and the scripts. */
const SOURCES = [
  "cli.ts",
  "mod.ts",
  "server.ts",
  "deno.json",
  "deno.lock",
  ".deno-version",
  "cli",
  "lib",
  "routes",
  "scripts",
  "ui",
];

/**
 * Copies the checkout's source into a temporary folder.
 *
 * @returns The copy's path; disposing removes it.
 */
export async function scratchCheckout(): Promise<{ path: string } & AsyncDisposable> {
  const dir = await tempDir("fw-checkout-");
  const cp = await new Deno.Command("cp", {
    args: ["-R", ...SOURCES.map((s) => join(ROOT, s)), dir.path],
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!cp.success) {
    await dir[Symbol.asyncDispose]();
    throw new Error(`cp failed: ${new TextDecoder().decode(cp.stderr)}`);
  }
  return dir;
}
