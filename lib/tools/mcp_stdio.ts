/**
 * A stdio transport for MCP clients that starts the server the framework's way: with only `PATH` and
 * the server's own `env` (never the process's variables), in a folder inside the harness, in a
 * process group of its own, and that stops the whole group when it is closed (SIGTERM, then SIGKILL
 * after a short grace), so neither a server that ignores SIGTERM nor the processes it started outlive
 * it; the groups of servers still running when the framework exits are killed then. Messages are newline-delimited JSON-RPC, as the MCP stdio transport specifies; one message is
 * capped ({@link MCP_MAX_MESSAGE_BYTES}): a server that writes more without a newline is stopped and
 * treated as failed, instead of growing the framework's memory and time with its output.
 *
 * @module
 */

import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { LineTooLongError, readLines } from "../lines.ts";

/** The largest message an MCP server may send over stdio: 8 MiB. */
export const MCP_MAX_MESSAGE_BYTES = 8 * 1024 * 1024;

/** How long a stopped server's process group has between SIGTERM and SIGKILL. */
const STOP_GRACE_MS = 2000;

/** The servers of this process not stopped yet: their groups are killed when the process exits. */
const running = new Set<Deno.ChildProcess>();
let exitHook = false;

/** Kills the groups of servers still running when the framework exits (Ctrl-C, SIGTERM). */
function killRunningAtExit(): void {
  if (exitHook) return;
  exitHook = true;
  globalThis.addEventListener("unload", () => {
    for (const proc of running) signalGroup(proc, "SIGKILL");
  });
}

/** How to start a stdio server. */
export interface StdioServer {
  command: string;
  args: string[];
  /** The complete environment (the caller adds `PATH`). */
  env: Record<string, string>;
  cwd: string;
  /** The largest message ({@link MCP_MAX_MESSAGE_BYTES} unless given). */
  maxMessageBytes?: number;
}

/** The transport, with what the framework reads about its server. */
export type StdioTransport = Transport & {
  /** The last lines the server wrote on stderr (for error messages). */
  stderrTail(): string;
  /** The server's process id (also its process group's), once started. */
  pid(): number | undefined;
  /** Why the transport gave up on the server (a message over the cap), if it did. */
  failure(): string | undefined;
};

/**
 * A transport over a child process's stdin and stdout.
 *
 * @example
 * ```ts
 * import { Client } from "@modelcontextprotocol/sdk/client/index.js";
 *
 * const transport = stdioTransport({
 *   command: "npx",
 *   args: ["-y", "@modelcontextprotocol/server-everything"],
 *   env: { PATH: Deno.env.get("PATH") ?? "" },
 *   cwd: await Deno.realPath("./harnesses/hello"),
 * });
 * const client = new Client({ name: "framework", version: "1" });
 * await client.connect(transport);
 * ```
 * @param server The command, its arguments, environment, folder and message cap.
 * @returns The transport.
 */
export function stdioTransport(server: StdioServer): StdioTransport {
  const maxMessageBytes = server.maxMessageBytes ?? MCP_MAX_MESSAGE_BYTES;
  let child: Deno.ChildProcess | undefined;
  let writer: WritableStreamDefaultWriter<Uint8Array> | undefined;
  let tail = "";
  let closed = false;
  let failure: string | undefined;
  let stopping: Promise<void> | undefined;
  const encoder = new TextEncoder();
  const finish = () => {
    if (closed) return;
    closed = true;
    transport.onclose?.();
  };
  const stop = () => (stopping ??= child ? stopGroup(child, writer) : Promise.resolve());
  const transport: StdioTransport = {
    start() {
      const proc = new Deno.Command(server.command, {
        args: server.args,
        env: server.env,
        clearEnv: true,
        cwd: server.cwd,
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
        // A session and process group of its own (setsid), so the whole group can be stopped.
        detached: true,
      }).spawn();
      child = proc;
      running.add(proc);
      killRunningAtExit();
      writer = proc.stdin.getWriter();
      (async () => {
        for await (const line of readLines(proc.stdout, { maxLineBytes: maxMessageBytes })) {
          if (!line.trim()) continue;
          try {
            transport.onmessage?.(JSON.parse(line) as JSONRPCMessage);
          } catch (err) {
            transport.onerror?.(err as Error);
          }
        }
      })().catch((err) => {
        if (!(err instanceof LineTooLongError)) return transport.onerror?.(err as Error);
        // Treated as failed: every request in flight and every later one ends with this.
        failure =
          `it sent a message longer than ${err.limitText} (the limit of one MCP message) and was stopped`;
        transport.onerror?.(new Error(failure));
        finish();
        void stop();
      });
      (async () => {
        const decoder = new TextDecoder();
        for await (const chunk of proc.stderr) tail = (tail + decoder.decode(chunk)).slice(-2000);
      })().catch(() => {});
      proc.status.then(() => {
        running.delete(proc);
        finish();
        // The server is gone; what it started in its group goes too.
        void stop();
      });
      return Promise.resolve();
    },
    async send(message: JSONRPCMessage) {
      if (!writer) throw new Error("The MCP server is not started");
      if (failure) throw new Error(failure);
      await writer.write(encoder.encode(JSON.stringify(message) + "\n"));
    },
    async close() {
      await stop();
      finish();
    },
    stderrTail: () => tail.trim(),
    pid: () => child?.pid,
    failure: () => failure,
  };
  return transport;
}

/**
 * Stops a server started in a process group of its own: closes its stdin, sends SIGTERM to the
 * group, waits for the server for a short grace, then sends SIGKILL to whatever of the group is left
 * (children that outlive their server are exactly what must not stay behind).
 */
async function stopGroup(
  proc: Deno.ChildProcess,
  writer: WritableStreamDefaultWriter<Uint8Array> | undefined,
): Promise<void> {
  // A process that already died refuses a close: abort releases the pipe all the same.
  await writer?.close().catch(() => writer?.abort().catch(() => {}));
  signalGroup(proc, "SIGTERM");
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    proc.status,
    new Promise<void>((r) => (timer = setTimeout(r, STOP_GRACE_MS))),
  ]);
  clearTimeout(timer);
  signalGroup(proc, "SIGKILL");
  await proc.status;
}

/** Sends a signal to a child's process group (the child alone where groups do not exist). */
function signalGroup(proc: Deno.ChildProcess, signal: Deno.Signal): void {
  try {
    if (Deno.build.os === "windows") proc.kill(signal);
    else Deno.kill(-proc.pid, signal);
  } catch {
    // already gone
  }
}
