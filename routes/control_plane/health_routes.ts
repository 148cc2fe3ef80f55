/**
 * The control plane's read routes: `/health` (no token), `/stats`, `/trace/{run_id}` and
 * `/validate`. Lookups are bound to the served harness.
 *
 * @module
 */

import { Hono } from "hono";
import { openHive } from "../../lib/hive/open.ts";
import { harnessStats } from "../../lib/hive/stats.ts";
import { jsonResponse, okResponse } from "../../lib/http/response.ts";
import { getTrace } from "../../lib/journal/trace.ts";
import { validateHarness } from "../../lib/validate/validate.ts";
import type { ControlPlaneApp, ControlPlaneContext, Env } from "./context.ts";

/**
 * The `/stats` answer of an authorized request (`GET /stats` is also answered before the router, by
 * the control plane itself; this route keeps `HEAD` and the 405 of other methods).
 *
 * @param ctx The control plane's context.
 * @returns The response.
 */
export function statsResponse(ctx: ControlPlaneContext): Response {
  return okResponse(harnessStats(openHive(), ctx.harness));
}

/**
 * The read routes.
 *
 * @param ctx The control plane's context.
 * @returns Their app.
 */
export function healthRoutes(ctx: ControlPlaneContext): ControlPlaneApp {
  const app = new Hono<Env>();
  app.get("/health", async () => jsonResponse(await ctx.health.json()));
  app.get("/stats", async (c) => {
    await ctx.authorize(c, "read");
    return statsResponse(ctx);
  });
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
