/**
 * The control plane's run routes: `POST /run` (JSON, or SSE with `?stream=true`) through the run
 * service, and `GET /runs/{run_id}/events` to resume a stream.
 *
 * @module
 */

import { Hono } from "hono";
import { openHive } from "../../lib/hive/open.ts";
import { okResponse } from "../../lib/http/response.ts";
import { sseResponse } from "../../lib/http/sse.ts";
import { lastEventId, readRequest, RUN_REQUEST } from "../../lib/requests.ts";
import { runEventFrames } from "../../lib/runs/events.ts";
import { sseFrames } from "../../lib/runs/frames.ts";
import type { ControlPlaneApp, ControlPlaneContext, Env } from "./context.ts";

/**
 * The run routes.
 *
 * @param ctx The control plane's context.
 * @returns Their app.
 */
export function runRoutes(ctx: ControlPlaneContext): ControlPlaneApp {
  const app = new Hono<Env>();
  app.post("/run", async (c) => {
    const { who, body } = await ctx.authorizedBody(c, "run");
    const run = await ctx.runs.submit(ctx.trusted, readRequest(RUN_REQUEST, body), {
      startedBy: who.key_id,
    });
    if (c.req.query("stream") === "true") return sseResponse(sseFrames(run.frames()));
    return okResponse(await run.result);
  });
  app.get("/runs/:run_id/events", async (c) => {
    await ctx.authorize(c, "read");
    const after = lastEventId(c.req.header("last-event-id"), c.req.query("last_event_id"));
    const frames = runEventFrames(openHive(), ctx.harness, c.req.param("run_id"), after);
    const first = await frames.next(); // a 404 is answered as JSON, before the stream starts
    return sseResponse(sseFrames((async function* () {
      if (!first.done) yield first.value;
      yield* frames;
    })()));
  });
  return app;
}
