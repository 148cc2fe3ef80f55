/**
 * The workbench's runs: a harness's runs and statistics, a new run through the run service (JSON, or
 * SSE with `?stream=true`), any target run by id: its trace, stop, folded context, journal bytes
 * and a resumable event stream, and the events of several runs over one resumable stream.
 *
 * @module
 */

import { Hono } from "hono";
import { FrameworkError } from "../../lib/errors.ts";
import { harnessOfRun } from "../../lib/hive/runs.ts";
import { harnessStats } from "../../lib/hive/stats.ts";
import { harnessCharts, MAX_CHART_DAYS } from "../../lib/hive/charts.ts";
import { okResponse } from "../../lib/http/response.ts";
import { sseResponse, sseWhileOpen } from "../../lib/http/sse.ts";
import { readJournalBytes } from "../../lib/journal/trace.ts";
import { lastEventId, readRequest, RUN_REQUEST } from "../../lib/requests.ts";
import { runEventFrames } from "../../lib/runs/events.ts";
import { sseFrames } from "../../lib/runs/frames.ts";
import { readRunSet, sseRunSetFrames } from "../../lib/runs/run_set.ts";
import { wholeNumber } from "../../lib/whole_number.ts";
import { harnessDirOf, harnessRefOf } from "../../lib/workbench/catalog.ts";
import {
  followTargetRuns,
  harnessRuns,
  runContext,
  runHandOffs,
  runView,
  targetRun,
} from "../../lib/workbench/runs.ts";
import type { WorkbenchApp, WorkbenchContext } from "./context.ts";

/**
 * The run routes.
 *
 * @param ctx The API's context.
 * @returns Their app.
 */
export function runRoutes(ctx: WorkbenchContext): WorkbenchApp {
  const app = new Hono();
  const { hive } = ctx;
  app.get("/api/harnesses/:id/runs", (c) => {
    const status = c.req.query("status");
    const before = c.req.query("before");
    return okResponse(
      harnessRuns(hive, harnessRefOf(hive, c.req.param("id")), {
        ...(status ? { status } : {}),
        limit: wholeNumber(c.req.query("limit"), {
          name: "limit",
          min: 1,
          max: 1000,
          fallback: 50,
        }),
        ...(before ? { before } : {}),
      }),
    );
  });
  app.get(
    "/api/harnesses/:id/stats",
    (c) => okResponse(harnessStats(hive, harnessRefOf(hive, c.req.param("id")))),
  );
  app.get("/api/harnesses/:id/charts", (c) =>
    okResponse(harnessCharts(
      hive,
      harnessRefOf(hive, c.req.param("id")),
      wholeNumber(c.req.query("days"), { name: "days", min: 1, max: MAX_CHART_DAYS, fallback: 30 }),
    )));
  app.post("/api/harnesses/:id/runs", async (c) => {
    const request = readRequest(RUN_REQUEST, await ctx.body(c));
    const run = await ctx.runs.submit(harnessDirOf(hive, c.req.param("id")), request);
    if (c.req.query("stream") === "true") return sseResponse(sseFrames(run.frames()));
    return okResponse(await run.result);
  });
  // Before /api/runs/:id, which would take "events" for a run id.
  app.get("/api/runs/events", (c) => {
    const cursors = readRunSet(
      c.req.query("runs"),
      c.req.header("last-event-id") ?? c.req.query("last_event_id"),
    );
    return sseWhileOpen((signal) => sseRunSetFrames(followTargetRuns(hive, cursors, signal)));
  });
  app.get("/api/runs/:id", async (c) => {
    const limit = wholeNumber(c.req.query("limit"), { name: "limit", min: 0, fallback: undefined });
    const from = wholeNumber(c.req.query("from"), { name: "from", min: 1, fallback: 1 });
    return okResponse(await runView(hive, c.req.param("id"), limit, from));
  });
  app.get("/api/runs/:id/context", async (c) => {
    const seq = wholeNumber(c.req.query("seq"), {
      name: "seq (a model call's)",
      min: 1,
      fallback: 0,
    });
    if (!seq) throw new FrameworkError("bad_input", "Send ?seq= with the seq of a model call");
    return okResponse(await runContext(hive, c.req.param("id"), seq));
  });
  app.get(
    "/api/runs/:id/hand-offs",
    async (c) => okResponse(await runHandOffs(hive, c.req.param("id"))),
  );
  app.get("/api/runs/:id/export", async (c) => {
    const row = targetRun(hive, c.req.param("id"));
    if (row.status === "running") {
      throw new FrameworkError(
        "conflict",
        "The run is still going; export it when it has finished",
      );
    }
    return new Response(await readJournalBytes(row) as BodyInit, {
      headers: {
        "content-type": "application/x-ndjson",
        "content-disposition": `attachment; filename="${row.run_id}.jsonl"`,
        "cache-control": "no-store",
      },
    });
  });
  app.get("/api/runs/:id/events", (c) => {
    const row = targetRun(hive, c.req.param("id"));
    const after = lastEventId(c.req.header("last-event-id"), c.req.query("last_event_id"));
    return sseWhileOpen((signal) =>
      sseFrames(runEventFrames(hive, harnessOfRun(row), row.run_id, after, signal))
    );
  });
  return app;
}
