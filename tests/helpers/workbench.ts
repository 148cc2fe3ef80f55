/**
 * Starts the real `framework workbench` as a subprocess on a free port and stops it.
 *
 * @module
 */

import { CLI_PATH } from "./cli.ts";
import { readSse } from "../../ui/api.ts";

/** A running workbench process. */
export interface RunningWorkbenchProcess extends AsyncDisposable {
  /** The launcher's URL. */
  url: string;
  /** The URL to open (with `?token=` beyond loopback). */
  openUrl: string;
  /** Where the API answers (the launcher's URL; a development checkout's own API port). */
  apiUrl: string;
  /** The process id (to read its sockets in /proc). */
  pid: number;
  /** The copilot model line, or null. */
  copilot: string | null;
  stderr: () => string;
  /** Stops it (SIGTERM) and waits for the exit. */
  stop(): Promise<void>;
}

/** Options of {@link startWorkbenchProcess}. */
export interface WorkbenchProcessOptions {
  /** FRAMEWORK_HOME of the process. */
  home: string;
  /** Its working folder (its ./harnesses is scanned and new harnesses go there). */
  cwd: string;
  /** Extra arguments (`--host 0.0.0.0`, `--dir X`). */
  args?: string[];
  /** Extra environment (`FRAMEWORK_COPILOT_MODEL`). */
  env?: Record<string, string>;
}

/**
 * Starts `framework workbench --port 0 --json` and waits until it listens.
 *
 * @param options Home, folder, arguments, environment.
 * @returns The running workbench; dispose it to stop it.
 */
export async function startWorkbenchProcess(
  options: WorkbenchProcessOptions,
): Promise<RunningWorkbenchProcess> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--quiet",
      CLI_PATH,
      "workbench",
      "--port",
      "0",
      "--json",
      ...(options.args ?? []),
    ],
    cwd: options.cwd,
    env: {
      FRAMEWORK_HOME: options.home,
      NO_COLOR: "1",
      FRAMEWORK_COPILOT_MODEL: "",
      OPENAI_API_KEY: "",
      ANTHROPIC_API_KEY: "",
      ...options.env,
    },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let err = "";
  const errDone = (async () => {
    const d = new TextDecoder();
    for await (const c of child.stderr) err += d.decode(c);
  })();
  const reader = child.stdout.getReader();
  let out = "";
  while (!out.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    out += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  const outDone = child.stdout.pipeTo(new WritableStream()).catch(() => {});
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    try {
      child.kill("SIGTERM");
    } catch {
      // gone
    }
    await child.status;
    await Promise.all([errDone, outDone]);
  };
  let data: { url: string; open_url: string; api_url: string; copilot: string | null };
  try {
    data = JSON.parse(out.split("\n")[0]!).data;
  } catch {
    await stop();
    throw new Error(`the workbench did not start: ${out}\n${err}`);
  }
  return {
    url: data.url,
    openUrl: data.open_url,
    apiUrl: data.api_url,
    pid: child.pid,
    copilot: data.copilot,
    stderr: () => err,
    stop,
    [Symbol.asyncDispose]: stop,
  };
}

/**
 * A JSON request through a workbench's launcher; the body is always read.
 *
 * @param wb The workbench.
 * @param method The method.
 * @param path The path (with its query).
 * @param body A JSON body, if any.
 * @returns The status and the parsed JSON (null for an empty body).
 */
export async function workbenchCall(
  wb: { url: string },
  method: string,
  path: string,
  body?: unknown,
  // deno-lint-ignore no-explicit-any
): Promise<{ status: number; json: any }> {
  const res = await fetch(`${wb.url}${path}`, {
    method,
    ...(body === undefined
      ? {}
      : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

/**
 * Starts a run through a workbench with its event stream, as the Run button does, and reads the
 * stream to its end in the background.
 *
 * @param wb The workbench.
 * @param harness The harness id.
 * @param input The run's input.
 * @returns The run's id (from `run_accepted`), and the names of every frame once the stream ends.
 */
export async function startStreamedRun(
  wb: { url: string },
  harness: string,
  input: string,
): Promise<{ runId: string; frames: Promise<string[]> }> {
  const res = await fetch(`${wb.url}/api/harnesses/${harness}/runs?stream=true`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ input }),
  });
  const stream = readSse(res);
  const first = await stream.next();
  if (first.value?.event !== "run_accepted") {
    throw new Error(`expected run_accepted first, got ${JSON.stringify(first.value)}`);
  }
  const frames = (async () => {
    const names = [first.value!.event];
    for await (const f of stream) names.push(f.event);
    return names;
  })();
  return { runId: (first.value.data as { run_id: string }).run_id, frames };
}
