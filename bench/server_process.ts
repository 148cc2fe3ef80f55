/**
 * Starts one of the benchmark servers (`bench/servers/*.ts`) in its own process and reads the port it
 * prints.
 *
 * @module
 */

import { frameworkTaskFlags } from "../scripts/install.ts";

/** A benchmark server process. */
export interface ServerProcess {
  port: number;
  pid: number;
  stop(): Promise<Deno.CommandStatus>;
}

/**
 * Starts `bench/servers/<script> <args…>` with `FRAMEWORK_HOME=home`.
 *
 * @param script The server script's file name.
 * @param arg Its argument (or arguments).
 * @param home The framework home.
 * @param denoFlags Extra `deno run` flags (e.g. V8 flags).
 * @param env More environment (e.g. `FRAMEWORK_HIVE_URL`).
 * @returns The running server.
 */
export async function startServer(
  script: string,
  arg: string | string[],
  home: string,
  denoFlags: string[] = [],
  env: Record<string, string> = {},
): Promise<ServerProcess> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--quiet",
      ...denoFlags,
      new URL(`./servers/${script}`, import.meta.url).pathname,
      ...(Array.isArray(arg) ? arg : [arg]),
    ],
    env: { FRAMEWORK_HOME: home, ...env },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  // The servers' stderr (request logs) is read and discarded, as a log collector would; the last
  // lines are kept to explain a server that dies.
  let tail = "";
  child.stderr.pipeThrough(new TextDecoderStream()).pipeTo(
    new WritableStream({ write: (chunk) => void (tail = (tail + chunk).slice(-2000)) }),
  ).catch(() => {});
  const reader = child.stdout.getReader();
  let out = "";
  while (!out.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`bench server ${script} exited before listening:\n${tail}`);
    out += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  child.stdout.pipeTo(new WritableStream()).catch(() => {});
  return {
    port: Number(out.trim()),
    pid: child.pid,
    stop: async () => (child.kill("SIGKILL"), await child.status),
  };
}

/**
 * The `deno run` flags the product runs with beyond permissions: the V8 flags of the `framework`
 * task in deno.json (which the install shim and the compiled binary use too), merged with extra V8
 * flags of a benchmark, so a framework server here runs as a user's does.
 *
 * @param extraV8 More V8 flags (e.g. `--expose-gc`).
 * @returns The flags to pass to `startServer`.
 */
export async function frameworkFlags(extraV8: string[] = []): Promise<string[]> {
  const task = frameworkTaskFlags(
    await Deno.readTextFile(new URL("../deno.json", import.meta.url)),
  );
  const own = task.split(" ").find((f) => f.startsWith("--v8-flags="))?.slice(11).split(",") ?? [];
  const all = [...own, ...extraV8];
  return all.length ? [`--v8-flags=${all.join(",")}`] : [];
}

/**
 * Resident set size of a process in MB (Linux `/proc`).
 *
 * @param pid The process.
 * @returns Megabytes.
 */
export async function rssMb(pid: number): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]) / 1024;
}
