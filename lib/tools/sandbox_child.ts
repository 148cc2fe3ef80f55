/**
 * The sandbox child process: one JSON request per stdin line; each answer is written to stdout behind
 * a per-process marker (`\x1e` + a random nonce), so whatever the code itself writes to stdout is
 * told apart (and kept as logs) instead of corrupting the protocol. The first stdin line is the nonce.
 * The parent starts this process with narrowed `--allow-*` flags and kills it when a call overruns.
 *
 * @module
 */

import { readLines } from "../lines.ts";
import { captureConsole, handleSandboxRequest, type SandboxRequest } from "./sandbox_protocol.ts";

/** The largest request (its arguments and context, from the framework itself): 64 MiB. */
const MAX_REQUEST_BYTES = 64 * 1024 * 1024;

captureConsole();
const encoder = new TextEncoder();
let nonce: string | undefined;
for await (const line of readLines(Deno.stdin.readable, { maxLineBytes: MAX_REQUEST_BYTES })) {
  if (!line.trim()) continue;
  if (nonce === undefined) {
    nonce = line.trim();
    continue;
  }
  const answer = await handleSandboxRequest(JSON.parse(line) as SandboxRequest);
  await Deno.stdout.write(encoder.encode(`\n\x1e${nonce}${JSON.stringify(answer)}\n`));
}
