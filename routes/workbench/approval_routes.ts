/**
 * The workbench's tool approvals (docs/workbench-api.md, Tool approvals): the requests of a harness,
 * of every harness the workbench offers (the rail's badge), one request, the change a `file_write`
 * request would make, and the person's decision — once, quoting the arguments' hash the card showed,
 * decided `by: "workbench"`. A request of a harness the workbench does not offer is 404, as an
 * unknown one.
 *
 * @module
 */

import { Hono } from "hono";
import { getApproval, listApprovals } from "../../lib/hive/approvals.ts";
import { okResponse } from "../../lib/http/response.ts";
import { APPROVAL_DECISION_REQUEST, approvalFilter, readRequest } from "../../lib/requests.ts";
import { approvalPreview } from "../../lib/runs/approval_preview.ts";
import { decideApproval } from "../../lib/runs/approvals.ts";
import { WORKBENCH_DECIDER, workbenchApprovals } from "../../lib/workbench/approvals.ts";
import { approvalHarnessOf, harnessRefOf } from "../../lib/workbench/catalog.ts";
import type { WorkbenchApp, WorkbenchContext } from "./context.ts";

/**
 * The approval routes.
 *
 * @param ctx The API's context.
 * @returns Their app.
 */
export function approvalRoutes(ctx: WorkbenchContext): WorkbenchApp {
  const app = new Hono();
  const { hive } = ctx;
  app.get("/api/harnesses/:id/approvals", (c) => {
    const which = approvalFilter(c.req.query("status"));
    return okResponse({
      approvals: listApprovals(hive, harnessRefOf(hive, c.req.param("id")), which),
    });
  });
  app.get(
    "/api/approvals",
    (c) => okResponse(workbenchApprovals(hive, approvalFilter(c.req.query("status")))),
  );
  app.get("/api/approvals/:id", (c) => {
    const id = c.req.param("id");
    return okResponse(getApproval(hive, approvalHarnessOf(hive, id), id));
  });
  app.get("/api/approvals/:id/preview", async (c) => {
    const id = c.req.param("id");
    const harness = approvalHarnessOf(hive, id);
    return okResponse(await approvalPreview(getApproval(hive, harness, id), harness.dir));
  });
  app.post("/api/approvals/:id", async (c) => {
    const request = readRequest(APPROVAL_DECISION_REQUEST, await ctx.body(c));
    const id = c.req.param("id");
    const harness = approvalHarnessOf(hive, id);
    // The record says `resumed_run_id` when approving took a stopped run up again.
    const { record } = await decideApproval(
      hive,
      ctx.runs,
      harness.dir,
      harness,
      id,
      request,
      WORKBENCH_DECIDER,
    );
    return okResponse(record);
  });
  return app;
}
