/**
 * The control plane's tool approvals (docs/control-plane.md, Tool approvals): the requests of the
 * served harness's runs, listed and read with `read`, decided with `mutate` — once, quoting the
 * arguments' hash, and never by the key whose token started the run unless it holds `*`.
 *
 * @module
 */

import { Hono } from "hono";
import { getApproval, listApprovals } from "../../lib/hive/approvals.ts";
import { openHive } from "../../lib/hive/open.ts";
import { okResponse } from "../../lib/http/response.ts";
import { APPROVAL_DECISION_REQUEST, approvalFilter, readRequest } from "../../lib/requests.ts";
import { decideApproval } from "../../lib/runs/approvals.ts";
import type { ControlPlaneApp, ControlPlaneContext, Env } from "./context.ts";

/**
 * The approval routes.
 *
 * @param ctx The control plane's context.
 * @returns Their app.
 */
export function approvalRoutes(ctx: ControlPlaneContext): ControlPlaneApp {
  const app = new Hono<Env>();
  const db = openHive();
  app.get("/approvals", async (c) => {
    await ctx.authorize(c, "read");
    const which = approvalFilter(c.req.query("status"));
    return okResponse({ approvals: listApprovals(db, ctx.harness, which) });
  });
  app.get("/approvals/:id", async (c) => {
    await ctx.authorize(c, "read");
    return okResponse(getApproval(db, ctx.harness, c.req.param("id")));
  });
  app.post("/approvals/:id", async (c) => {
    const { who, body } = await ctx.authorizedBody(c, "mutate");
    const request = readRequest(APPROVAL_DECISION_REQUEST, body);
    const { record, resumed } = await decideApproval(
      db,
      ctx.runs,
      ctx.trusted,
      ctx.harness,
      c.req.param("id"),
      request,
      { by: who.key_id, mayDecideOwn: who.scopes.includes("*") },
    );
    return okResponse({ ...record, ...(resumed ? { resumed_run_id: resumed.run_id } : {}) });
  });
  return app;
}
