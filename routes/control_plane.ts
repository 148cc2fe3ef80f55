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
 *   trusted: await trustGate(dir, { approve: true }),
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
import { withCheckedHost } from "../lib/http/host.ts";
import { pathOf, requestLog, withRequestLog } from "../lib/http/request_log.ts";
import { authenticate } from "../lib/keys/authenticate.ts";
import { createRunGate } from "../lib/runs/capacity.ts";
import { healthSnapshot } from "../lib/runs/health.ts";
import { createRunService } from "../lib/runs/service.ts";
import { loadSpecCached } from "../lib/harness_spec/cache.ts";
import type { TrustedFolder } from "../lib/trust/trust_gate.ts";
import { startServerUpkeep } from "../lib/runs/server_upkeep.ts";
import {
  type ControlPlaneApp,
  type ControlPlaneContext,
  type Env,
} from "./control_plane/context.ts";
import { evolutionRoutes } from "./control_plane/evolution_routes.ts";
import { pageRoutes } from "./control_plane/page_routes.ts";
import {
  type Answer,
  healthAnswer,
  healthRoutes,
  statsAnswer,
} from "./control_plane/health_routes.ts";
import { a2aAnswer, a2aRoutes } from "./control_plane/a2a_routes.ts";
import { A2A_PATH } from "../lib/a2a/card.ts";
import { chatCompletionsAnswer, openAiRoutes } from "./control_plane/openai_routes.ts";
import { runAnswer, runRoutes } from "./control_plane/run_routes.ts";
import { threadRoutes, threadRunAnswer, threadRunPath } from "./control_plane/thread_routes.ts";
import { approvalRoutes } from "./control_plane/approval_routes.ts";
import { specRoutes } from "./control_plane/spec_routes.ts";
import { finishApp } from "./hono_app.ts";

/** The key a refusal names (a scope refusal comes from a verified key), for the request log. */
function refusedKeyId(err: unknown): string | undefined {
  return err instanceof FrameworkError && typeof err.details.key_id === "string"
    ? err.details.key_id
    : undefined;
}

export type { ControlPlaneApp, ControlPlaneContext, Env };

/** Options of {@link createControlPlane}. */
export interface ControlPlaneOptions {
  /** The harness folder, as the trust gate's proof for it (checked once, before the port opens). */
  trusted: TrustedFolder;
  /** The authorized-key store, read on every request. */
  storePath: string;
  maxConcurrentRuns?: number;
  maxQueuedRuns?: number;
  /** Runs that may wait for a person's decision at once (default 16). */
  maxWaitingRuns?: number;
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
 * Builds the control plane of one harness: its routes by resource (health, runs, threads, approvals,
 * spec, evolution) and the OpenAI-compatible endpoints under `/v1/`, each a few lines over the
 * library.
 *
 * @param options The harness and its trust proof, the key store, capacity and limits.
 * @returns The handler and a closer.
 */
export async function createControlPlane(options: ControlPlaneOptions): Promise<ControlPlane> {
  const dir = options.trusted.dir;
  const harnessId = (await loadSpecCached(dir)).spec.id;
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  const runs = createRunService({
    gate: createRunGate({
      maxConcurrent: options.maxConcurrentRuns ?? 1,
      maxQueued: options.maxQueuedRuns ?? 4,
    }),
    ...(options.maxWaitingRuns !== undefined ? { maxWaitingRuns: options.maxWaitingRuns } : {}),
  });
  const stderrLog = options.log === undefined ? requestLog() : undefined;
  const log = stderrLog ? stderrLog.line : options.log;
  // The key each request was verified with (or refused after its token was), for its log line.
  const keyOf = new WeakMap<Request, string>();
  const ctx: ControlPlaneContext = {
    harness: { id: harnessId, dir },
    trusted: options.trusted,
    runs,
    health: healthSnapshot(dir),
    async verify(request, scope) {
      try {
        const principal = await authenticate(request, options.storePath, scope, {
          audience: harnessId,
        });
        keyOf.set(request, principal.key_id);
        return principal;
      } catch (err) {
        const keyId = refusedKeyId(err);
        if (keyId) keyOf.set(request, keyId);
        throw err;
      }
    },
    async authorize(c, scope) {
      const principal = await ctx.verify(c.req.raw, scope);
      c.set("principal", principal);
      return principal;
    },
    async authorizedBody(c, scope, allowEmpty = false) {
      const verified = await ctx.verifiedBody(c.req.raw, scope, allowEmpty);
      c.set("principal", verified.who);
      return verified;
    },
    async verifiedBody(request, scope, allowEmpty = false) {
      const body = readJsonObject(request, maxBodyBytes, { allowEmpty });
      body.catch(() => {}); // its error is reported after the token's verdict, or not at all
      const who = await ctx.verify(request, scope);
      return { who, body: await body };
    },
  };

  // `GET /health` and `GET /stats` — the probe and the poll, the two requests monitoring sends
  // hardest — `POST /run`, the request a deployed harness serves most, and `POST /a2a` and
  // `POST /v1/chat/completions`, the same request from another agent and from an OpenAI client, are
  // answered before the router, by the same answers its routes give.
  const direct = new Map<string, Answer>([
    ["GET /health", healthAnswer(ctx)],
    ["GET /stats", statsAnswer(ctx)],
    ["POST /run", runAnswer(ctx)],
    [`POST ${A2A_PATH}`, a2aAnswer(ctx)],
    ["POST /v1/chat/completions", chatCompletionsAnswer(ctx)],
  ]);
  const threadTurn = threadRunAnswer(ctx);
  const app: ControlPlaneApp = new Hono<Env>();
  for (
    const routes of [
      pageRoutes,
      healthRoutes,
      runRoutes,
      threadRoutes,
      approvalRoutes,
      specRoutes,
      evolutionRoutes,
      a2aRoutes,
    ]
  ) {
    app.route("/", routes(ctx));
  }
  // OpenAI's shapes, errors included, under /v1/ and only there.
  app.route("/v1", openAiRoutes(ctx));
  finishApp(app);
  const stopUpkeep = startServerUpkeep();
  return {
    fetch: withCheckedHost(withRequestLog(
      (request) => {
        const method = request.method;
        if (method !== "GET" && method !== "POST") return app.fetch(request);
        const path = pathOf(request);
        const answer = direct.get(`${method} ${path}`);
        if (answer) return answer(request);
        // A thread's turn, the request a conversation sends most, is answered before the router too.
        const thread = method === "POST" ? threadRunPath(path) : undefined;
        return thread ? threadTurn(request, thread) : app.fetch(request);
      },
      log,
      (request) => keyOf.get(request),
    )),
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
