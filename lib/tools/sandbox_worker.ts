/**
 * The sandbox as a Deno Worker, used where no `deno` executable can be started (a compiled binary).
 * Note: Deno 2.9 cannot stop a worker stuck in an endless loop (denoland/deno#35657), so the
 * child-process sandbox is preferred wherever it is available.
 *
 * @module
 */

/// <reference lib="deno.worker" />

import { captureConsole, handleSandboxRequest, type SandboxRequest } from "./sandbox_protocol.ts";

captureConsole();
self.onmessage = async (event: MessageEvent<SandboxRequest>) => {
  self.postMessage(await handleSandboxRequest(event.data));
};
