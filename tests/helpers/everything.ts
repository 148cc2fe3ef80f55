/**
 * The reference MCP "everything" server from npm, run by Deno from its cache over stdio, for the MCP
 * tests and the MCP benchmark.
 *
 * The package is cached without the project's deno.json and lockfile: the server runs in a harness
 * folder outside the project, where `--cached-only` needs the registry's metadata in the cache, which
 * a cache run that resolves through the project's lockfile never writes (a fresh machine fails so).
 *
 * @module
 */

/** The pinned package. */
export const EVERYTHING = "npm:@modelcontextprotocol/server-everything@2026.8.31";

/** Brings the package into Deno's cache (network once), or says why it could not. */
export async function cacheEverything(): Promise<{ ok: boolean; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["cache", "--no-config", "--no-lock", EVERYTHING],
    cwd: Deno.env.get("TMPDIR") ?? "/tmp",
    stdout: "null",
    stderr: "piped",
  }).output();
  return { ok: out.code === 0, stderr: new TextDecoder().decode(out.stderr) };
}

/** Deno's cache folder, passed to the server so it finds the package without the parent's env. */
export async function denoDir(): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), { args: ["info", "--json"] }).output();
  return JSON.parse(new TextDecoder().decode(out.stdout)).denoDir;
}

/** A `mcp_servers` entry that starts the server over stdio from the cache. */
export async function everythingServer(
  extra: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  return {
    name: "everything",
    command: Deno.execPath(),
    args: ["run", "-A", "--cached-only", EVERYTHING, "stdio"],
    env: { DENO_DIR: await denoDir() },
    ...extra,
  };
}
