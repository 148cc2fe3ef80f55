/**
 * The fixture stdio MCP server of the hardening tests (`children/mcp_fixture_server.ts`) as a
 * `mcp_servers` entry, and a look at whether a process still lives.
 *
 * @module
 */

import { fileURLToPath } from "node:url";
import { denoDir } from "./everything.ts";

/** The fixture server's script. */
export const FIXTURE_SERVER = fileURLToPath(
  new URL("./children/mcp_fixture_server.ts", import.meta.url),
);

/**
 * A `mcp_servers` entry that starts the fixture server (named `fixture`) over stdio.
 *
 * @param env The server's environment (`START_LOG`, `CHILD_PID_FILE`, `IGNORE_SIGTERM`, `HOOK`).
 * @param extra Other fields of the entry (`timeout_s`, `tools`).
 * @returns The entry.
 */
export async function fixtureServer(
  env: Record<string, string> = {},
  extra: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  return {
    name: "fixture",
    command: Deno.execPath(),
    args: ["run", "-A", "--quiet", "--no-config", "--no-lock", FIXTURE_SERVER],
    env: { DENO_DIR: await denoDir(), ...env },
    ...extra,
  };
}

/**
 * Whether a process lives: it exists and is not a zombie (an orphan that nobody reaped yet is dead).
 *
 * @param pid The process id.
 * @returns True while it runs.
 */
export async function alive(pid: number): Promise<boolean> {
  try {
    const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/**
 * Waits until a process is dead, at most `limitMs` (a SIGKILL takes effect when the kernel next runs
 * the process, not at once).
 *
 * @param pid The process id.
 * @param limitMs How long to wait at most.
 * @returns True when it died, false when it still lives at the end.
 */
export async function diedWithin(pid: number, limitMs = 10_000): Promise<boolean> {
  const until = Date.now() + limitMs;
  while (await alive(pid)) {
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}
