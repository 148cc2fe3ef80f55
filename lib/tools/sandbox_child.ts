/**
 * The sandbox child process: one JSON request per stdin line, one JSON answer per stdout line. The
 * parent starts it with narrowed `--allow-*` flags and kills it when a call overruns.
 *
 * @module
 */

import { captureConsole, handleSandboxRequest, type SandboxRequest } from "./sandbox_protocol.ts";

captureConsole();
const encoder = new TextEncoder();
const decoder = new TextDecoder();
let buffer = "";
for await (const chunk of Deno.stdin.readable) {
  buffer += decoder.decode(chunk, { stream: true });
  let nl: number;
  while ((nl = buffer.indexOf("\n")) >= 0) {
    const line = buffer.slice(0, nl);
    buffer = buffer.slice(nl + 1);
    if (!line.trim()) continue;
    const answer = await handleSandboxRequest(JSON.parse(line) as SandboxRequest);
    await Deno.stdout.write(encoder.encode(JSON.stringify(answer) + "\n"));
  }
}
