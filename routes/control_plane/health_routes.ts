/**
 * The control plane's read routes: `/health` (no token), `/stats`, `/trace/{run_id}` and
 * `/validate`. Lookups are bound to the served harness.
 *
 * @module
 */

import { Hono } from "hono";
import { openHive } from "../../lib/hive/open.ts";
import { harnessStats } from "../../lib/hive/stats.ts";
import { errorResponse, jsonResponse, okResponse } from "../../lib/http/response.ts";
import { getTrace } from "../../lib/journal/trace.ts";
import { validateHarness } from "../../lib/validate/validate.ts";
import type { ControlPlaneApp, ControlPlaneContext, Env } from "./context.ts";

/** A request's answer, made synchronously when it can be. */
export type Answer = (request: Request) => Response | Promise<Response>;

/**
 * The `/health` answer: the snapshot's JSON, made synchronously while the snapshot stands (no
 * promise on the probe's path). The control plane answers `GET /health` with it before the router;
 * the route below answers `HEAD` and gives other methods their 405.
 *
 * @param ctx The control plane's context.
 * @returns The answer.
 */
export function healthAnswer(ctx: ControlPlaneContext): Answer {
  return () => {
    const json = ctx.health.json();
    return typeof json === "string" ? jsonResponse(json) : json.then(jsonResponse);
  };
}

/**
 * The `/stats` answer: the token checked for `read`, then the harness's statistics; a refusal is
 * answered here (the poll's path never goes through the router's error handler).
 *
 * @param ctx The control plane's context.
 * @returns The answer.
 */
export function statsAnswer(ctx: ControlPlaneContext): Answer {
  const db = openHive();
  return async (request) => {
    try {
      await ctx.verify(request, "read");
      return okResponse(harnessStats(db, ctx.harness));
    } catch (err) {
      return errorResponse(err);
    }
  };
}

/**
 * The read routes.
 *
 * @param ctx The control plane's context.
 * @returns Their app.
 */
export function healthRoutes(ctx: ControlPlaneContext): ControlPlaneApp {
  const app = new Hono<Env>();
  const health = healthAnswer(ctx);
  const stats = statsAnswer(ctx);
  app.get("/health", (c) => health(c.req.raw));
  app.get("/stats", (c) => stats(c.req.raw));
  app.get("/trace/:run_id", async (c) => {
    await ctx.authorize(c, "read");
    const { run: _run, ...trace } = await getTrace(openHive(), ctx.harness, c.req.param("run_id"));
    return okResponse(trace);
  });
  app.post("/validate", async (c) => {
    await ctx.authorize(c, "read");
    await c.req.raw.body?.cancel();
    const { valid, issues } = await validateHarness(ctx.harness.dir);
    return okResponse({ valid, issues });
  });
  return app;
}
