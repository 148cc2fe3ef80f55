/**
 * Starting the workbench: the private API on a random loopback port (or a fixed one in development),
 * the launcher on the public address, one per-launch secret between them, and an access token when the
 * launcher listens beyond loopback.
 *
 * @module
 */

import { resolve } from "node:path";
import { exposureWarning, isLoopbackHost } from "../lib/http/net.ts";
import { allowedHosts, newSecret } from "../lib/workbench/access.ts";
import type { CopilotModel } from "../lib/workbench/copilot/setup.ts";
import { startServerUpkeep } from "../lib/runs/server_upkeep.ts";
import { createWorkbenchApi } from "./workbench_api.ts";
import { createLauncher } from "./workbench_launcher.ts";
import { createPages } from "./workbench_pages.tsx";

/** Options of {@link startWorkbench}. */
export interface WorkbenchOptions {
  /** Launcher address (default 127.0.0.1). */
  host?: string;
  /** Launcher port (default 8770; 0 picks one). */
  port?: number;
  /** The API's port (default: a random one). */
  apiPort?: number;
  /** Extra harness folders. */
  dirs?: string[];
  /** Trees to scan besides the harnesses folder. */
  scanDirs?: string[];
  /** Where harnesses are created and scanned first (default `./harnesses`). */
  harnessesDir?: string;
  /** The copilot's model (default: from the environment). */
  copilotModel?: CopilotModel | undefined;
  /** Where warnings go (default stderr). */
  warn?: (text: string) => void;
  /** A development checkout: pages reload when the server restarts. */
  dev?: boolean;
  /** Replaces the embedded browser script and styles. */
  assets?: { js: string; css: string };
}

/** A running workbench. */
export interface RunningWorkbench {
  /** The launcher's URL. */
  url: string;
  /** The URL to open (with `?token=` beyond loopback). */
  openUrl: string;
  /** The private API's URL (not reachable without the secret). */
  apiUrl: string;
  copilotModel: CopilotModel | undefined;
  /** How many runs are going (the copilot's and the harnesses'). */
  activeRuns(): number;
  /**
   * Shuts the workbench down as the control plane does: no new connections; running runs get up to
   * `graceMs` (default {@link SHUTDOWN_GRACE_MS}) to finish, then the rest are stopped, each ending
   * `error` with reason `stopped` and its journal closed and verifiable; then both servers close. A
   * second call with a shorter grace (a second Ctrl-C) stops the runs sooner.
   */
  close(graceMs?: number): Promise<void>;
}

/** How long the workbench's running runs may finish when it shuts down. */
export const SHUTDOWN_GRACE_MS = 10_000;

/** How long the servers' last requests may take once every run has ended. */
const REQUESTS_GRACE_MS = 5_000;

/**
 * Starts the workbench.
 *
 * @example
 * ```ts
 * const wb = await startWorkbench({ port: 8770 });
 * console.log(`Open ${wb.openUrl}`);
 * ```
 * @param options Addresses, folders, copilot model.
 * @returns The running workbench.
 */
export async function startWorkbench(options: WorkbenchOptions = {}): Promise<RunningWorkbench> {
  const host = options.host ?? "127.0.0.1";
  const harnessesDir = options.harnessesDir ?? "./harnesses";
  const secret = newSecret();
  const api = await createWorkbenchApi({
    secret,
    harnessesDir: await absolute(harnessesDir),
    dirs: options.dirs ?? [],
    scanDirs: options.scanDirs ?? [],
    ...("copilotModel" in options ? { copilotModel: options.copilotModel } : {}),
  });
  const apiServer = Deno.serve({
    hostname: "127.0.0.1",
    port: options.apiPort ?? 0,
    onListen: () => {},
  }, api.fetch);
  const apiUrl = `http://127.0.0.1:${apiServer.addr.port}`;
  const accessToken = isLoopbackHost(host) ? null : newSecret(16);
  const allowed = new Set<string>();
  const launcher = createLauncher({
    apiOrigin: apiUrl,
    secret,
    allowedHosts: allowed,
    accessToken,
    pages: createPages({
      apiUrl,
      secret,
      ...(options.dev ? { dev: true } : {}),
      ...(options.assets ? { assets: options.assets } : {}),
    }),
  });
  let server: Deno.HttpServer<Deno.NetAddr>;
  try {
    server = Deno.serve(
      { hostname: host, port: options.port ?? 8770, onListen: () => {} },
      launcher,
    );
  } catch (err) {
    await apiServer.shutdown();
    throw err;
  }
  const stopUpkeep = startServerUpkeep();
  const port = server.addr.port;
  for (const h of allowedHosts(host, port)) allowed.add(h);
  const shown = host === "0.0.0.0" || host === "::"
    ? "127.0.0.1"
    : host.includes(":")
    ? `[${host}]`
    : host;
  const url = `http://${shown}:${port}`;
  if (accessToken) {
    (options.warn ?? ((t) => console.error(t)))(exposureWarning("the workbench", host, port));
  }
  let closing: Promise<void> | undefined;
  const shutDown = async (runsEnded: Promise<void>) => {
    try {
      // No new connections from now on; a request in flight (a run's stream) ends with its run.
      const serversClosed = Promise.allSettled([server.shutdown(), apiServer.shutdown()]);
      await runsEnded;
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        serversClosed,
        new Promise((r) => (timer = setTimeout(r, REQUESTS_GRACE_MS))),
      ]);
      clearTimeout(timer);
    } finally {
      await stopUpkeep();
    }
  };
  return {
    url,
    openUrl: accessToken ? `${url}/?token=${accessToken}` : url,
    apiUrl,
    copilotModel: api.copilotModel,
    activeRuns: api.activeRuns,
    async close(graceMs = SHUTDOWN_GRACE_MS) {
      const runsEnded = api.closeRuns(graceMs);
      closing ??= shutDown(runsEnded);
      await closing;
    },
  };
}

async function absolute(dir: string): Promise<string> {
  return await Deno.realPath(dir).catch(() => resolve(dir));
}
