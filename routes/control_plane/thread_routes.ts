/**
 * The control plane's threads (docs/control-plane.md, Threads): make, list, read and delete the
 * conversations of the served harness, and run a turn of one (JSON, or SSE with `?stream=true`). A
 * thread belongs to the key that made it: another key's thread is a plain 404 unless the token holds
 * `*`.
 *
 * @module
 */

import { Hono } from "hono";
import { openHive } from "../../lib/hive/open.ts";
import {
  createThread,
  deleteThread,
  getThread,
  listThreads,
  threadTurns,
} from "../../lib/hive/threads.ts";
import { okResponse } from "../../lib/http/response.ts";
import { sseResponse } from "../../lib/http/sse.ts";
import { busyPolicy, readRequest, RUN_REQUEST, THREAD_REQUEST } from "../../lib/requests.ts";
import { sseFrames } from "../../lib/runs/frames.ts";
import { submitToThread, threadViewer } from "../../lib/runs/threads.ts";
import { wholeNumber } from "../../lib/whole_number.ts";
import type { ControlPlaneApp, ControlPlaneContext, Env } from "./context.ts";

/**
 * The thread routes.
 *
 * @param ctx The control plane's context.
 * @returns Their app.
 */
export function threadRoutes(ctx: ControlPlaneContext): ControlPlaneApp {
  const app = new Hono<Env>();
  const db = openHive();
  app.post("/threads", async (c) => {
    const { who, body } = await ctx.authorizedBody(c, "run", true);
    const { metadata } = readRequest(THREAD_REQUEST, body);
    return okResponse(createThread(db, ctx.harness, who.key_id, metadata ?? {}), 201);
  });
  app.get("/threads", async (c) => {
    const who = await ctx.authorize(c, "read");
    const limit = wholeNumber(c.req.query("limit"), {
      name: "limit",
      min: 1,
      max: 100,
      fallback: 20,
    });
    const cursor = c.req.query("cursor") || undefined;
    return okResponse(listThreads(db, ctx.harness, threadViewer(who), { limit, cursor }));
  });
  app.get("/threads/:id", async (c) => {
    const who = await ctx.authorize(c, "read");
    const thread = getThread(db, ctx.harness, c.req.param("id"), threadViewer(who));
    return okResponse({ ...thread, runs: threadTurns(db, thread.thread_id) });
  });
  app.delete("/threads/:id", async (c) => {
    const who = await ctx.authorize(c, "mutate");
    deleteThread(db, ctx.harness, c.req.param("id"), threadViewer(who));
    return okResponse({ deleted: true });
  });
  app.post("/threads/:id/run", async (c) => {
    const { who, body } = await ctx.authorizedBody(c, "run");
    const busy = busyPolicy(c.req.query("busy"));
    const sent = await submitToThread(
      db,
      ctx.runs,
      ctx.trusted,
      ctx.harness,
      c.req.param("id"),
      readRequest(RUN_REQUEST, body),
      { busy, viewer: threadViewer(who), startedBy: who.key_id },
    );
    if (sent.kind === "steered") {
      return okResponse({ run_id: sent.run_id, message_id: sent.message_id }, 202);
    }
    const run = sent.submission;
    if (c.req.query("stream") === "true") return sseResponse(sseFrames(run.frames()));
    return okResponse(await run.result);
  });
  return app;
}
