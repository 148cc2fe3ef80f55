/**
 * A stdio transport for MCP clients that starts the server the framework's way: with only `PATH` and
 * the server's own `env` (never the process's variables), in a folder inside the harness, and that
 * kills the whole process when it is closed. Messages are newline-delimited JSON-RPC, as the MCP
 * stdio transport specifies.
 *
 * @module
 */

import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { readLines } from "../lines.ts";

/** How to start a stdio server. */
export interface StdioServer {
  command: string;
  args: string[];
  /** The complete environment (the caller adds `PATH`). */
  env: Record<string, string>;
  cwd: string;
}

/**
 * A transport over a child process's stdin and stdout.
 *
 * @param server The command, its arguments, environment and folder.
 * @returns The transport, and the last lines the server wrote on stderr (for error messages).
 */
export function stdioTransport(
  server: StdioServer,
): Transport & { stderrTail(): string; pid(): number | undefined } {
  let child: Deno.ChildProcess | undefined;
  let writer: WritableStreamDefaultWriter<Uint8Array> | undefined;
  let tail = "";
  let closed = false;
  const encoder = new TextEncoder();
  const transport: Transport & { stderrTail(): string; pid(): number | undefined } = {
    start() {
      child = new Deno.Command(server.command, {
        args: server.args,
        env: server.env,
        clearEnv: true,
        cwd: server.cwd,
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      writer = child.stdin.getWriter();
      (async () => {
        for await (const line of readLines(child!.stdout)) {
          if (!line.trim()) continue;
          try {
            transport.onmessage?.(JSON.parse(line) as JSONRPCMessage);
          } catch (err) {
            transport.onerror?.(err as Error);
          }
        }
      })().catch((err) => transport.onerror?.(err as Error));
      (async () => {
        const decoder = new TextDecoder();
        for await (const chunk of child!.stderr) tail = (tail + decoder.decode(chunk)).slice(-2000);
      })().catch(() => {});
      child.status.then(() => {
        if (!closed) {
          closed = true;
          transport.onclose?.();
        }
      });
      return Promise.resolve();
    },
    async send(message: JSONRPCMessage) {
      if (!writer) throw new Error("The MCP server is not started");
      await writer.write(encoder.encode(JSON.stringify(message) + "\n"));
    },
    async close() {
      if (!child) return;
      const proc = child;
      // A process that already died refuses a close: abort releases the pipe all the same.
      await writer?.close().catch(() => writer?.abort().catch(() => {}));
      try {
        proc.kill("SIGTERM");
      } catch {
        // already gone
      }
      let timer: ReturnType<typeof setTimeout> | undefined;
      const gone = await Promise.race([
        proc.status.then(() => true),
        new Promise<boolean>((r) => (timer = setTimeout(() => r(false), 2000))),
      ]);
      clearTimeout(timer);
      if (!gone) {
        try {
          proc.kill("SIGKILL");
        } catch {
          // already gone
        }
        await proc.status;
      }
      if (!closed) {
        closed = true;
        transport.onclose?.();
      }
    },
    stderrTail: () => tail.trim(),
    pid: () => child?.pid,
  };
  return transport;
}
