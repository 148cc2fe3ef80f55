/**
 * Runs the real `framework` command as a subprocess.
 *
 * @module
 */

/** Absolute path of cli.ts. */
export const CLI_PATH: string = new URL("../../cli.ts", import.meta.url).pathname;

/** What a CLI run produced. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (throws if it is not exactly one JSON document). */
  // deno-lint-ignore no-explicit-any
  json: () => { ok: boolean; data?: any; error?: { kind: string; message: string; details: any } };
}

/** Options of {@link runCli}. */
export interface CliOptions {
  /** FRAMEWORK_HOME of the child. */
  home: string;
  cwd?: string;
  env?: Record<string, string>;
  /** Text for stdin (default: no stdin). */
  stdin?: string;
}

/**
 * Runs `framework <args>` and collects its output.
 *
 * @param args The arguments.
 * @param options Home, folder, environment, stdin.
 * @returns Exit code, stdout, stderr.
 */
export async function runCli(args: string[], options: CliOptions): Promise<CliResult> {
  const cmd = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", CLI_PATH, ...args],
    cwd: options.cwd,
    env: { FRAMEWORK_HOME: options.home, NO_COLOR: "1", ...options.env },
    stdin: options.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  });
  const child = cmd.spawn();
  if (options.stdin !== undefined) {
    const w = child.stdin.getWriter();
    await w.write(new TextEncoder().encode(options.stdin));
    await w.close();
  }
  const out = await child.output();
  const stdout = new TextDecoder().decode(out.stdout);
  const stderr = new TextDecoder().decode(out.stderr);
  return {
    code: out.code,
    stdout,
    stderr,
    json: () => JSON.parse(stdout),
  };
}
