/**
 * The workbench's threads (docs/workbench-api.md, Threads): a harness's conversations, made, listed,
 * read and deleted, and a turn of one run (JSON, or SSE with `?stream=true`). The person in the page
 * sees every thread of the workbench's harnesses (whoever made it), and no other; threads it makes
 * are owned by `workbench`.
 *
 * @module
 */

import { Hono } from "hono";
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
import { submitToThread } from "../../lib/runs/threads.ts";
import { wholeNumber } from "../../lib/whole_number.ts";
import { harnessRefOf, threadHarnessOf } from "../../lib/workbench/catalog.ts";
import { PERSON, type WorkbenchApp, type WorkbenchContext } from "./context.ts";

/**
 * The thread routes.
 *
 * @param ctx The API's context.
 * @returns Their app.
 */
export function threadRoutes(ctx: WorkbenchContext): WorkbenchApp {
  const app = new Hono();
  const { hive } = ctx;
  app.get("/api/harnesses/:id/threads", (c) => {
    const limit = wholeNumber(c.req.query("limit"), {
      name: "limit",
      min: 1,
      max: 200,
      fallback: 50,
    });
    const cursor = c.req.query("cursor") || undefined;
    return okResponse(
      listThreads(hive, harnessRefOf(hive, c.req.param("id")), null, { limit, cursor }),
    );
  });
  app.post("/api/harnesses/:id/threads", async (c) => {
    const { metadata } = readRequest(THREAD_REQUEST, await ctx.body(c, true));
    const harness = harnessRefOf(hive, c.req.param("id"));
    return okResponse(createThread(hive, harness, PERSON, metadata ?? {}), 201);
  });
  app.get("/api/threads/:id", (c) => {
    const id = c.req.param("id");
    const thread = getThread(hive, threadHarnessOf(hive, id), id, null);
    return okResponse({ ...thread, runs: threadTurns(hive, id) });
  });
  app.delete("/api/threads/:id", (c) => {
    const id = c.req.param("id");
    deleteThread(hive, threadHarnessOf(hive, id), id, null);
    return okResponse({ deleted: true });
  });
  app.post("/api/threads/:id/run", async (c) => {
    const id = c.req.param("id");
    const request = readRequest(RUN_REQUEST, await ctx.body(c));
    const harness = threadHarnessOf(hive, id);
    const sent = await submitToThread(hive, ctx.runs, harness.dir, harness, id, request, {
      busy: busyPolicy(c.req.query("busy")),
      viewer: null,
    });
    if (sent.kind === "steered") {
      return okResponse({ run_id: sent.run_id, message_id: sent.message_id }, 202);
    }
    if (c.req.query("stream") === "true") return sseResponse(sseFrames(sent.submission.frames()));
    return okResponse(await sent.submission.result);
  });
  return app;
}
