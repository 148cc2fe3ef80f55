/**
 * The control plane's HTTP surface: one harness over bearer-authenticated HTTP. Each route translates
 * a request into one library call and its result into the ok wrapper; authentication, capacity,
 * frozen roots and harness binding are decided in `lib/`.
 *
 * @example Serve a harness
 * ```ts
 * import { authorizedKeysPath } from "../lib/paths.ts";
 * import { trustGate } from "../lib/trust/trust_gate.ts";
 *
 * const dir = await Deno.realPath("./support-bot");
 * const plane = await createControlPlane({
 *   harness: await trustGate(dir, { approve: true }),
 *   storePath: authorizedKeysPath(dir),
 * });
 * Deno.serve({ hostname: "127.0.0.1", port: 8420 }, plane.fetch);
 * ```
 *
 * @module
 */

import { Hono } from "hono";
import { FrameworkError } from "../lib/errors.ts";
import { readJsonObject } from "../lib/http/body.ts";
import { errorResponse, jsonResponse } from "../lib/http/response.ts";
import { withCheckedHost } from "../lib/http/host.ts";
import { requestLine, requestLog } from "../lib/http/request_log.ts";
import { authenticate } from "../lib/keys/authenticate.ts";
import { createRunGate } from "../lib/runs/capacity.ts";
import { healthSnapshot } from "../lib/runs/health.ts";
import { createRunService } from "../lib/runs/service.ts";
import { loadSpecCached } from "../lib/spec/spec_cache.ts";
import type { TrustedFolder } from "../lib/trust/trust_gate.ts";
import { startServerUpkeep } from "../lib/runs/server_upkeep.ts";
import {
  type ControlPlaneApp,
  type ControlPlaneContext,
  type Env,
} from "./control_plane/context.ts";
import { evolutionRoutes } from "./control_plane/evolution_routes.ts";
import { pageRoutes } from "./control_plane/page_routes.ts";
import { healthRoutes, statsResponse } from "./control_plane/health_routes.ts";
import { runRoutes } from "./control_plane/run_routes.ts";
import { specRoutes } from "./control_plane/spec_routes.ts";
import { finishApp } from "./hono_app.ts";

/**
 * The path of a `GET` request without its query, or undefined for any other method. The hottest
 * routes are looked up by it before the router.
 */
function getPath(request: Request): string | undefined {
  if (request.method !== "GET") return undefined;
  const url = request.url;
  const start = url.indexOf("/", url.indexOf("://") + 3);
  if (start < 0) return undefined;
  const query = url.indexOf("?", start);
  return query < 0 ? url.slice(start) : url.slice(start, query);
}

/** The key a refusal names (a scope refusal comes from a verified key), for the request log. */
function refusedKeyId(err: unknown): string | undefined {
  return err instanceof FrameworkError && typeof err.details.key_id === "string"
    ? err.details.key_id
    : undefined;
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
  const authorizeRequest = (request: Request, scope: string | null) =>
    authenticate(request, options.storePath, scope, { audience: harnessId });
  const ctx: ControlPlaneContext = {
    harness: { id: harnessId, dir },
    trusted: options.harness,
    runs,
    health: healthSnapshot(dir),
    async authorize(c, scope) {
      try {
        const principal = await authorizeRequest(c.req.raw, scope);
        c.set("keyId", principal.key_id);
        c.set("principal", principal);
        return principal;
      } catch (err) {
        const keyId = refusedKeyId(err);
        if (keyId) c.set("keyId", keyId);
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

  // `GET /health` and `GET /stats` are answered before the router: the probe and the poll, the two
  // requests monitoring sends hardest. While the health snapshot stands, its answer is made
  // synchronously (no promise on the probe's path).
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
  const stats = async (request: Request): Promise<Response> => {
    const t0 = performance.now();
    let keyId: string | undefined;
    let response: Response;
    try {
      keyId = (await authorizeRequest(request, "read")).key_id;
      response = statsResponse(ctx);
    } catch (err) {
      keyId ??= refusedKeyId(err); // a failure after the token was verified still names its key
      response = errorResponse(err);
    }
    log?.(requestLine("GET", "/stats", response.status, performance.now() - t0, keyId));
    return response;
  };
  const direct = new Map<string, (request: Request) => Response | Promise<Response>>([
    ["/health", health],
    ["/stats", stats],
  ]);

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
    fetch: withCheckedHost((request) => {
      const path = getPath(request);
      const answer = path === undefined ? undefined : direct.get(path);
      return answer ? answer(request) : app.fetch(request);
    }),
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
