/**
 * The control plane's HTTP surface: one harness over bearer-authenticated HTTP. Each route translates
 * a request into one library call and its result into the ok wrapper; authentication, capacity,
 * frozen roots and harness binding are decided in `lib/`.
 *
 * @example Serve a harness
 * ```ts
 * const plane = await createControlPlane({ harnessDir: "./support-bot", storePath });
 * Deno.serve({ hostname: "127.0.0.1", port: 8420 }, plane.fetch);
 * ```
 *
 * @module
 */

import { Hono } from "hono";
import { FrameworkError } from "../lib/errors.ts";
import { readJsonObject } from "../lib/http/body.ts";
import { jsonResponse } from "../lib/http/response.ts";
import { withCheckedHost } from "../lib/http/host.ts";
import { requestLine, requestLog } from "../lib/http/request_log.ts";
import { authenticate } from "../lib/keys/authenticate.ts";
import { createRunGate } from "../lib/runs/gate.ts";
import { healthSnapshot } from "../lib/runs/health.ts";
import { createRunService } from "../lib/runs/service.ts";
import { loadSpecCached } from "../lib/spec/spec_cache.ts";
import type { TrustedFolder } from "../lib/trust/gate.ts";
import { startServerUpkeep } from "../lib/runs/server_upkeep.ts";
import {
  type ControlPlaneApp,
  type ControlPlaneContext,
  type Env,
} from "./control_plane/context.ts";
import { evolutionRoutes } from "./control_plane/evolution_routes.ts";
import { pageRoutes } from "./control_plane/page_routes.ts";
import { healthRoutes } from "./control_plane/health_routes.ts";
import { runRoutes } from "./control_plane/run_routes.ts";
import { specRoutes } from "./control_plane/spec_routes.ts";
import { finishApp } from "./hono_app.ts";

/** Whether a request is exactly `GET /health` (any query); anything else goes through the router. */
function isHealthRequest(request: Request): boolean {
  if (request.method !== "GET") return false;
  const url = request.url;
  const start = url.indexOf("/", url.indexOf("://") + 3);
  return start > 0 && url.startsWith("/health", start) &&
    (url.length === start + 7 || url[start + 7] === "?");
}

export type { ControlPlaneApp, ControlPlaneContext, Env };

/** Options of {@link createControlPlane}. */
export interface ControlPlaneOptions {
  /** The harness folder, with the trust gate's proof (checked once, before the port opens). */
  harness: TrustedFolder;
  /** The authorized-key store, read on every request. */
  storePath: string;
  maxConcurrentRuns?: number;
  maxQueuedRuns?: number;
  /** Request body limit in bytes (default 1 MiB). */
  maxBodyBytes?: number;
  /** Where request lines go (default stderr, written without blocking); null turns logging off. */
  log?: ((line: string) => void) | null;
}

/** A control plane ready to serve. */
export interface ControlPlane {
  /** The request handler for `Deno.serve`. */
  fetch: (request: Request) => Response | Promise<Response>;
  harnessId: string;
  /** Stops runs that are still going (after a bounded grace period) and releases resources. */
  close(graceMs?: number): Promise<void>;
}

/**
 * Builds the control plane of one harness: its routes by resource (health, runs, spec, evolution),
 * each a few lines over the library.
 *
 * @param options The harness and its trust proof, the key store, capacity and limits.
 * @returns The handler and a closer.
 */
export async function createControlPlane(options: ControlPlaneOptions): Promise<ControlPlane> {
  const dir = options.harness.dir;
  const harnessId = (await loadSpecCached(dir)).spec.id;
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  const runs = createRunService({
    gate: createRunGate({
      maxConcurrent: options.maxConcurrentRuns ?? 1,
      maxQueued: options.maxQueuedRuns ?? 4,
    }),
  });
  const stderrLog = options.log === undefined ? requestLog() : undefined;
  const log = stderrLog ? stderrLog.line : options.log;
  const ctx: ControlPlaneContext = {
    harness: { id: harnessId, dir },
    trusted: options.harness,
    runs,
    health: healthSnapshot(dir),
    async authorize(c, scope) {
      try {
        const principal = await authenticate(c.req.raw, options.storePath, scope, {
          audience: harnessId,
        });
        c.set("keyId", principal.key_id);
        c.set("principal", principal);
        return principal;
      } catch (err) {
        // A scope refusal comes from a verified key: the log names it.
        if (err instanceof FrameworkError && typeof err.details.key_id === "string") {
          c.set("keyId", err.details.key_id);
        }
        throw err;
      }
    },
    async authorizedBody(c, scope, allowEmpty = false) {
      const body = readJsonObject(c.req.raw, maxBodyBytes, { allowEmpty });
      body.catch(() => {}); // its error is reported after the token's verdict, or not at all
      const who = await ctx.authorize(c, scope);
      return { who, body: await body };
    },
  };

  // `GET /health` is answered before the router: it is the load balancer's probe, polled hardest.
  // While the snapshot stands, the answer is made synchronously (no promise on the probe's path).
  const health = (): Response | Promise<Response> => {
    const t0 = performance.now();
    const answer = (json: string) => {
      const response = jsonResponse(json);
      log?.(requestLine("GET", "/health", 200, performance.now() - t0, undefined));
      return response;
    };
    const json = ctx.health.json();
    return typeof json === "string" ? answer(json) : json.then(answer);
  };

  const app: ControlPlaneApp = new Hono<Env>();
  app.use("*", async (c, next) => {
    const t0 = performance.now();
    await next();
    log?.(
      requestLine(c.req.method, c.req.path, c.res.status, performance.now() - t0, c.get("keyId")),
    );
  });
  for (const routes of [pageRoutes, healthRoutes, runRoutes, specRoutes, evolutionRoutes]) {
    app.route("/", routes(ctx));
  }
  finishApp(app);
  const stopUpkeep = startServerUpkeep();
  return {
    fetch: withCheckedHost((request) => isHealthRequest(request) ? health() : app.fetch(request)),
    harnessId,
    close: async (graceMs = 10_000) => {
      try {
        ctx.health.close();
        await runs.close(graceMs);
        await stderrLog?.flush();
      } finally {
        await stopUpkeep();
      }
    },
  };
}
