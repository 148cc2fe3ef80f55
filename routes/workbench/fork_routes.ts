/**
 * Forks and lineage (docs/workbench-api.md, Forks and lineage): fork a target run at a model call
 * into a new harness beside its parent (the page sends a name, never a path), resume a fork (JSON
 * or SSE), and a run's parent and children.
 *
 * @module
 */

import { Hono } from "hono";
import { harnessOfRun } from "../../lib/hive/runs.ts";
import { okResponse } from "../../lib/http/response.ts";
import { sseResponse } from "../../lib/http/sse.ts";
import { readRequest, RESUME_REQUEST } from "../../lib/requests.ts";
import {
  FORK_REQUEST,
  forkRun,
  resumeFork,
  runLineage,
  suggestForkName,
} from "../../lib/runs/forks.ts";
import { sseFrames } from "../../lib/runs/frames.ts";
import { harnessDirOf } from "../../lib/workbench/catalog.ts";
import { targetRun } from "../../lib/workbench/runs.ts";
import { PERSON, type WorkbenchApp, type WorkbenchContext } from "./context.ts";

/**
 * The fork routes.
 *
 * @param ctx The API's context.
 * @returns Their app.
 */
export function forkRoutes(ctx: WorkbenchContext): WorkbenchApp {
  const app = new Hono();
  const { hive } = ctx;
  app.post("/api/runs/:id/fork", async (c) => {
    const row = targetRun(hive, c.req.param("id"));
    const request = readRequest(FORK_REQUEST, await ctx.body(c));
    return okResponse(await forkRun(hive, row.run_id, request, PERSON), 201);
  });
  app.get("/api/runs/:id/fork-name", async (c) => {
    const row = targetRun(hive, c.req.param("id"));
    return okResponse({ name: await suggestForkName(hive, harnessOfRun(row)) });
  });
  app.get("/api/runs/:id/lineage", (c) => {
    const row = targetRun(hive, c.req.param("id"));
    return okResponse(runLineage(hive, row.run_id));
  });
  app.post("/api/harnesses/:id/resume", async (c) => {
    readRequest(RESUME_REQUEST, await ctx.body(c, true));
    const run = await resumeFork(hive, ctx.runs, harnessDirOf(hive, c.req.param("id")));
    if (c.req.query("stream") === "true") return sseResponse(sseFrames(run.frames()));
    await run.started; // a run that cannot start answers its error, not 202
    return okResponse({ run_id: run.run_id }, 202);
  });
  return app;
}
