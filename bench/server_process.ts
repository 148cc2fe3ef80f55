/**
 * Starts one of the benchmark servers (`bench/servers/*.ts`) in its own process and reads the port it
 * prints.
 *
 * @module
 */

/** A benchmark server process. */
export interface ServerProcess {
  port: number;
  pid: number;
  stop(): Promise<Deno.CommandStatus>;
}

/**
 * Starts `bench/servers/<script> <arg>` with `FRAMEWORK_HOME=home`.
 *
 * @param script The server script's file name.
 * @param arg Its one argument.
 * @param home The framework home.
 * @param denoFlags Extra `deno run` flags (e.g. V8 flags).
 * @returns The running server.
 */
export async function startServer(
  script: string,
  arg: string,
  home: string,
  denoFlags: string[] = [],
): Promise<ServerProcess> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--quiet",
      ...denoFlags,
      new URL(`./servers/${script}`, import.meta.url).pathname,
      arg,
    ],
    env: { FRAMEWORK_HOME: home },
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.getReader();
  let out = "";
  while (!out.includes("\n")) out += new TextDecoder().decode((await reader.read()).value);
  reader.releaseLock();
  child.stdout.pipeTo(new WritableStream()).catch(() => {});
  return {
    port: Number(out.trim()),
    pid: child.pid,
    stop: async () => (child.kill("SIGKILL"), await child.status),
  };
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
