/**
 * Starting the workbench: the launcher on the public address, which serves the pages and calls the
 * API app in process for `/api` (one origin, no second port, no secret between them), an access token
 * when it listens beyond loopback, and in a development checkout the API on a loopback port of its own
 * as well.
 *
 * @module
 */

import { resolve } from "node:path";
import { exposureWarning, isLoopbackHost } from "../lib/http/net.ts";
import { allowedHosts, newSecret } from "../lib/workbench/access.ts";
import type { CopilotModel } from "../lib/workbench/copilot/setup.ts";
import { startServerUpkeep } from "../lib/runs/server_upkeep.ts";
import { createWorkbenchApi } from "./workbench_api.ts";
import { createLauncher, type Handler } from "./workbench_launcher.ts";
import { notFound } from "../lib/errors.ts";
import { errorResponse } from "../lib/http/response.ts";
import { createPages } from "./workbench_pages.tsx";

/** Options of {@link startWorkbench}. */
export interface WorkbenchOptions {
  /** Launcher address (default 127.0.0.1). */
  host?: string;
  /** Launcher port (default 8770; 0 picks one). */
  port?: number;
  /** A development checkout's separate API port (default: none; the API is served at `/api`). */
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
  /** Where the API answers: the launcher's URL (`/api/…`), or a development checkout's API port. */
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
  const api = await createWorkbenchApi({
    harnessesDir: await absolute(harnessesDir),
    dirs: options.dirs ?? [],
    scanDirs: options.scanDirs ?? [],
    ...("copilotModel" in options ? { copilotModel: options.copilotModel } : {}),
  });
  const accessToken = isLoopbackHost(host) ? null : newSecret(16);
  const allowed = new Set<string>();
  const launcher = createLauncher({
    api: api.fetch,
    allowedHosts: allowed,
    accessToken,
    pages: createPages({
      api: api.fetch,
      ...(options.dev ? { dev: true } : {}),
      ...(options.assets ? { assets: options.assets } : {}),
    }),
  });
  const server = Deno.serve(
    { hostname: host, port: options.port ?? 8770, onListen: () => {} },
    launcher,
  );
  // A development checkout also serves the API on a port of its own (loopback, the same checks as the
  // launcher, no pages): the UI and the API run separately there.
  let apiServer: Deno.HttpServer<Deno.NetAddr> | undefined;
  try {
    if (options.apiPort !== undefined) apiServer = serveApiAlone(api.fetch, options.apiPort);
  } catch (err) {
    await server.shutdown();
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
      const serversClosed = Promise.allSettled([server.shutdown(), apiServer?.shutdown()]);
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
    apiUrl: apiServer ? `http://127.0.0.1:${apiServer.addr.port}` : url,
    copilotModel: api.copilotModel,
    activeRuns: api.activeRuns,
    async close(graceMs = SHUTDOWN_GRACE_MS) {
      const runsEnded = api.closeRuns(graceMs);
      closing ??= shutDown(runsEnded);
      await closing;
    },
  };
}

/**
 * Serves the API alone on a loopback port (a development checkout's separate API): only its own host
 * names, no cross-origin writes, no pages.
 */
function serveApiAlone(api: Handler, port: number): Deno.HttpServer<Deno.NetAddr> {
  const allowed = new Set<string>();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port, onListen: () => {} },
    createLauncher({
      api,
      allowedHosts: allowed,
      accessToken: null,
      pages: () =>
        errorResponse(
          notFound("This port serves the workbench API (/api/…); open the UI's address"),
        ),
    }),
  );
  for (const h of allowedHosts("127.0.0.1", server.addr.port)) allowed.add(h);
  return server;
}

async function absolute(dir: string): Promise<string> {
  return await Deno.realPath(dir).catch(() => resolve(dir));
}
