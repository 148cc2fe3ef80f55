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

/** A `framework` command still going: its output so far, its stdin, and its end. */
export interface LiveCli extends AsyncDisposable {
  /** Everything it wrote so far (stdout and stderr together). */
  readonly seen: () => string;
  /** Waits until its output matches, failing with what it wrote after `timeoutMs`. */
  until(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Writes to its stdin. */
  write(text: string): Promise<void>;
  /** Its process id (of `script` when it runs on a terminal). */
  readonly pid: number;
  /** Waits for it to end. */
  status(): Promise<Deno.CommandStatus>;
}

function shellQuote(arg: string): string {
  return `'${arg.replaceAll("'", `'\\''`)}'`;
}

/**
 * Starts `framework <args>` and returns at once, to follow its output and answer on its stdin.
 * With `tty`, it runs on a pseudo-terminal (util-linux `script`), as a person's shell runs it: its
 * stdin is a terminal, and what it writes arrives through the terminal.
 *
 * @param args The arguments.
 * @param options Home, folder, environment, and whether to give it a terminal.
 * @returns The running command (disposing of it kills it if it is still going).
 */
export function spawnCli(
  args: string[],
  options: Omit<CliOptions, "stdin"> & { tty?: boolean },
): LiveCli {
  const argv = [Deno.execPath(), "run", "-A", "--quiet", CLI_PATH, ...args];
  const cmd = options.tty
    ? new Deno.Command("script", {
      args: ["-qefc", argv.map(shellQuote).join(" "), "/dev/null"],
      cwd: options.cwd,
      env: { FRAMEWORK_HOME: options.home, NO_COLOR: "1", TERM: "dumb", ...options.env },
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    })
    : new Deno.Command(argv[0]!, {
      args: argv.slice(1),
      cwd: options.cwd,
      env: { FRAMEWORK_HOME: options.home, NO_COLOR: "1", ...options.env },
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    });
  const child = cmd.spawn();
  let text = "";
  const changed = new EventTarget();
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) {
      text += decoder.decode(chunk, { stream: true });
      changed.dispatchEvent(new Event("text"));
    }
  };
  const pumped = Promise.all([pump(child.stdout), pump(child.stderr)]);
  const writer = child.stdin.getWriter();
  let ended = false;
  const status = child.status.then(async (s) => {
    ended = true;
    await pumped;
    changed.dispatchEvent(new Event("text"));
    return s;
  });
  return {
    seen: () => text,
    pid: child.pid,
    async until(pattern, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (true) {
        const m = text.match(pattern);
        if (m) return m;
        if (ended) throw new Error(`It ended without writing ${pattern}:\n${text}`);
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`No ${pattern} within ${timeoutMs} ms:\n${text}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.min(left, 1000));
          changed.addEventListener("text", () => {
            clearTimeout(timer);
            resolve();
          }, { once: true });
        });
      }
    },
    async write(t) {
      await writer.write(new TextEncoder().encode(t));
    },
    status: () => status,
    async [Symbol.asyncDispose]() {
      if (!ended) {
        try {
          child.kill("SIGKILL");
        } catch { /* it ended meanwhile */ }
      }
      await writer.close().catch(() => {});
      await status;
    },
  };
}
