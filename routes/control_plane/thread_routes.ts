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
import { queryParam } from "../../lib/http/query_param.ts";
import { errorResponse, okResponse } from "../../lib/http/response.ts";
import { sseResponse } from "../../lib/http/sse.ts";
import { busyPolicy, readRequest, RUN_REQUEST, THREAD_REQUEST } from "../../lib/requests.ts";
import { sseFrames } from "../../lib/runs/frames.ts";
import { submitToThread, threadViewer } from "../../lib/runs/threads.ts";
import { wholeNumber } from "../../lib/whole_number.ts";
import type { ControlPlaneApp, ControlPlaneContext, Env } from "./context.ts";

/**
 * The `POST /threads/{id}/run` answer: the token checked for `run` while the body is read, the
 * message sent to the thread under its busy policy, and the run's result (or, with `?stream=true`, its
 * frames) answered, or the steering message it became (202); a refusal is answered here. The
 * control plane answers a turn with it before the router, as the route below does.
 *
 * @param ctx The control plane's context.
 * @returns The answer, given the request and the thread's id.
 */
export function threadRunAnswer(
  ctx: ControlPlaneContext,
): (request: Request, threadId: string) => Promise<Response> {
  const db = openHive();
  return async (request, threadId) => {
    try {
      const { who, body } = await ctx.verifiedBody(request, "run");
      const sent = await submitToThread(
        db,
        ctx.runs,
        ctx.trusted,
        ctx.harness,
        threadId,
        readRequest(RUN_REQUEST, body),
        {
          busy: busyPolicy(queryParam(request, "busy") ?? undefined),
          viewer: threadViewer(who),
          startedBy: who.key_id,
        },
      );
      if (sent.kind === "steered") {
        return okResponse({ run_id: sent.run_id, message_id: sent.message_id }, 202);
      }
      const run = sent.submission;
      if (queryParam(request, "stream") === "true") return sseResponse(sseFrames(run.frames()));
      return okResponse(await run.result);
    } catch (err) {
      return errorResponse(err);
    }
  };
}

/**
 * The thread whose turn a request's path asks for (`/threads/{id}/run`), when its id needs no
 * decoding; anything else is the router's.
 *
 * @param path The request's path.
 * @returns The thread's id, or undefined.
 */
export function threadRunPath(path: string): string | undefined {
  if (!path.startsWith("/threads/") || !path.endsWith("/run")) return undefined;
  const id = path.slice("/threads/".length, -"/run".length);
  return id && !/[/%]/.test(id) ? id : undefined;
}

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
  const turn = threadRunAnswer(ctx);
  app.post("/threads/:id/run", (c) => turn(c.req.raw, c.req.param("id")));
  return app;
}
