/**
 * Starts the real `framework control-plane` as a subprocess on a free port of 127.0.0.1 and stops it.
 *
 * @module
 */

import { CLI_PATH } from "./cli.ts";

/** A running control plane. */
export interface RunningControlPlane extends AsyncDisposable {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** What it printed on startup (`{url, harness_id, harness_dir, key_store, active_keys}`). */
  info: Record<string, unknown>;
  /** The server process id (to read its memory in /proc). */
  pid: number;
  /** stderr lines so far (request log, warnings). */
  stderr: () => string[];
  /** Sends SIGTERM and waits for the exit code. */
  stop(): Promise<number>;
  /** The exit code, once the process ends (whoever stopped it). */
  exited: Promise<number>;
}

/** Options of {@link startControlPlane}. */
export interface StartOptions {
  home: string;
  /** Extra arguments (e.g. `--max-concurrent-runs 2`). */
  args?: string[];
  env?: Record<string, string>;
  /** An installed `framework` command to start it with, instead of `deno run -A cli.ts`. */
  command?: string;
}

/**
 * Starts `framework control-plane <dir> --port 0 --json --approve` and waits until it listens.
 *
 * @param dir The harness folder.
 * @param options Home, extra arguments, environment.
 * @returns The running server; dispose it (or call stop) to stop it.
 */
export async function startControlPlane(
  dir: string,
  options: StartOptions,
): Promise<RunningControlPlane> {
  const [command, launch] = options.command
    ? [options.command, []]
    : [Deno.execPath(), ["run", "-A", "--quiet", CLI_PATH]];
  const child = new Deno.Command(command, {
    args: [
      ...launch,
      "control-plane",
      dir,
      "--port",
      "0",
      "--json",
      "--approve",
      ...(options.args ?? []),
    ],
    env: { FRAMEWORK_HOME: options.home, NO_COLOR: "1", ...options.env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const lines: string[] = [];
  const stderrDone = (async () => {
    const decoder = new TextDecoder();
    let buf = "";
    for await (const chunk of child.stderr) {
      buf += decoder.decode(chunk, { stream: true });
      let nl: number;
      while ((nl = buf.indexOf("\n")) >= 0) {
        lines.push(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
      }
    }
    if (buf) lines.push(buf);
  })();
  const reader = child.stdout.getReader();
  let out = "";
  while (!out.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    out += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  const stdoutDone = child.stdout.pipeTo(new WritableStream()).catch(() => {});
  let status: Deno.CommandStatus | undefined;
  const stop = async () => {
    if (!status) {
      try {
        child.kill("SIGTERM");
      } catch {
        // already gone
      }
      status = await child.status;
      await Promise.all([stderrDone, stdoutDone]);
    }
    return status.code;
  };
  let doc: { ok: boolean; data: Record<string, unknown> };
  try {
    doc = JSON.parse(out.split("\n")[0]!);
  } catch {
    await stop();
    throw new Error(`the control plane did not start: ${out}\n${lines.join("\n")}`);
  }
  return {
    url: doc.data.url as string,
    info: doc.data,
    pid: child.pid,
    stderr: () => lines,
    stop,
    exited: child.status.then((s) => s.code),
    [Symbol.asyncDispose]: async () => void (await stop()),
  };
}

/**
 * Authorizes a fresh key with scopes in a harness's store and mints a token with the real CLI verbs'
 * library functions (same code paths as `framework keys`).
 *
 * @param dir The harness folder.
 * @param home The framework home (where the key file goes).
 * @param name The key name.
 * @param keyScopes The key's scopes.
 * @param tokenScopes The token's scopes (default `*`).
 * @returns The token and key id.
 */
export async function memberToken(
  dir: string,
  home: string,
  name: string,
  keyScopes: string[],
  tokenScopes: string[] = ["*"],
): Promise<{ token: string; key_id: string; keyPath: string }> {
  const { generateKey } = await import("../../lib/keys/key_files.ts");
  const { authorizeKey } = await import("../../lib/keys/key_store.ts");
  const { signToken } = await import("../../lib/keys/tokens.ts");
  const key = await generateKey(name, `${home}/keys`);
  await authorizeKey(`${dir}/.framework/authorized_keys.json`, name, key.public_key, keyScopes);
  const signed = await signToken({ keyPath: key.path, scopes: tokenScopes });
  return { token: signed.token, key_id: key.key_id, keyPath: key.path };
}

/** One SSE frame as read by a test. */
// deno-lint-ignore no-explicit-any
export type SseTestFrame = { event: string; data: any; id?: string };

/**
 * Reads an SSE response into frames.
 *
 * @param response The response.
 * @returns The frames, in order.
 */
export async function readSse(response: Response): Promise<SseTestFrame[]> {
  const text = await response.text();
  const frames: SseTestFrame[] = [];
  for (const block of text.split("\n\n")) {
    if (!block.trim() || block.startsWith(":")) continue;
    const frame: SseTestFrame = { event: "message", data: undefined };
    for (const line of block.split("\n")) {
      if (line.startsWith("event: ")) frame.event = line.slice(7);
      else if (line.startsWith("data: ")) frame.data = JSON.parse(line.slice(6));
      else if (line.startsWith("id: ")) frame.id = line.slice(4);
    }
    frames.push(frame);
  }
  return frames;
}
