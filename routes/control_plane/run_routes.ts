/**
 * The control plane's run routes: `POST /run` (JSON, or SSE with `?stream=true`) through the run
 * service, and `GET /runs/{run_id}/events` to resume a stream.
 *
 * @module
 */

import { Hono } from "hono";
import { openHive } from "../../lib/hive/open.ts";
import { queryParam } from "../../lib/http/query_param.ts";
import { errorResponse, okResponse } from "../../lib/http/response.ts";
import { sseResponse } from "../../lib/http/sse.ts";
import { lastEventId, readRequest, RUN_REQUEST } from "../../lib/requests.ts";
import { runEventFrames } from "../../lib/runs/events.ts";
import { sseFrames } from "../../lib/runs/frames.ts";
import type { ControlPlaneApp, ControlPlaneContext, Env } from "./context.ts";
import type { Answer } from "./health_routes.ts";

/**
 * The `POST /run` answer: the token checked for `run` while the body is read, the run submitted, its
 * result (or, with `?stream=true`, its frames) answered; a refusal is answered here. The control
 * plane answers `POST /run` with it before the router, as the route below does.
 *
 * @param ctx The control plane's context.
 * @returns The answer.
 */
export function runAnswer(ctx: ControlPlaneContext): Answer {
  return async (request) => {
    try {
      const { who, body } = await ctx.verifiedBody(request, "run");
      const run = await ctx.runs.submit(ctx.trusted, readRequest(RUN_REQUEST, body), {
        startedBy: who.key_id,
      });
      if (queryParam(request, "stream") === "true") return sseResponse(sseFrames(run.frames()));
      return okResponse(await run.result);
    } catch (err) {
      return errorResponse(err);
    }
  };
}

/**
 * The run routes.
 *
 * @param ctx The control plane's context.
 * @returns Their app.
 */
export function runRoutes(ctx: ControlPlaneContext): ControlPlaneApp {
  const app = new Hono<Env>();
  const run = runAnswer(ctx);
  app.post("/run", (c) => run(c.req.raw));
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
