/**
 * Eval cases from runs: a run drafted as a case (its input, its status, a check of its output) and a
 * case added to one of the harness's eval sets (`evals/<set>.yaml`, comments kept, 409 for an id the
 * set already has). The page sends a set name, never a path.
 *
 * @module
 */

import { Hono } from "hono";
import { addEvalCase, evalCaseFromRun } from "../../lib/evals/eval_cases.ts";
import { okResponse } from "../../lib/http/response.ts";
import { EVAL_CASE_REQUEST, readRequest } from "../../lib/requests.ts";
import { harnessDirOf } from "../../lib/workbench/catalog.ts";
import { targetRun } from "../../lib/workbench/runs.ts";
import type { WorkbenchApp, WorkbenchContext } from "./context.ts";

/**
 * The eval case routes.
 *
 * @param ctx The API's context.
 * @returns Their app.
 */
export function evalCaseRoutes(ctx: WorkbenchContext): WorkbenchApp {
  const app = new Hono();
  const { hive } = ctx;
  app.get("/api/runs/:id/eval-case", async (c) => {
    return okResponse(await evalCaseFromRun(hive, targetRun(hive, c.req.param("id"))));
  });
  app.post("/api/harnesses/:id/evals/cases", async (c) => {
    const dir = harnessDirOf(hive, c.req.param("id"));
    const body = readRequest(EVAL_CASE_REQUEST, await ctx.body(c));
    return okResponse(await addEvalCase(dir, body.set, body.case), 201);
  });
  return app;
}
