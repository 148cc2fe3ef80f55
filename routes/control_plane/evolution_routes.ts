/**
 * The control plane's evolution routes: draft a proposal (never applied by drafting), list and show
 * proposals, and the human gate (apply, reject), all as the remote edit policy. Every proposal lookup
 * is bound to the served harness.
 *
 * @module
 */

import { Hono } from "hono";
import { applyProposal, rejectProposal } from "../../lib/evolve/decide.ts";
import { proposeImprovement } from "../../lib/evolve/propose.ts";
import { openHive } from "../../lib/hive/open.ts";
import { getProposal, listProposals } from "../../lib/hive/proposals.ts";
import { okResponse } from "../../lib/http/response.ts";
import { APPLY_REQUEST, PROPOSE_REQUEST, readRequest, REJECT_REQUEST } from "../../lib/requests.ts";
import {
  CONTROL_PLANE_POLICY,
  type ControlPlaneApp,
  type ControlPlaneContext,
  type Env,
} from "./context.ts";

/**
 * The evolution routes.
 *
 * @param ctx The control plane's context.
 * @returns Their app.
 */
export function evolutionRoutes(ctx: ControlPlaneContext): ControlPlaneApp {
  const app = new Hono<Env>();
  const dir = ctx.harness.dir;
  const policy = { policy: CONTROL_PLANE_POLICY } as const;
  app.post("/evolve/propose", async (c) => {
    const body = readRequest(PROPOSE_REQUEST, (await ctx.authorizedBody(c, "evolve", true)).body);
    const proposal = await proposeImprovement(dir, {
      trigger: "http",
      ...policy,
      ...(body.objective ? { objective: body.objective } : {}),
      ...(body.runs ? { runIds: body.runs } : {}),
    });
    return okResponse(proposal);
  });
  app.get("/proposals", async (c) => {
    await ctx.authorize(c, "read");
    return okResponse({
      proposals: listProposals(openHive(), ctx.harness, c.req.query("status")),
    });
  });
  app.get("/proposals/:id", async (c) => {
    await ctx.authorize(c, "read");
    return okResponse(getProposal(openHive(), ctx.harness, c.req.param("id")));
  });
  app.post("/proposals/:id/apply", async (c) => {
    const body = readRequest(APPLY_REQUEST, (await ctx.authorizedBody(c, "evolve")).body);
    return okResponse(
      await applyProposal(dir, c.req.param("id"), {
        approve_code: body.approve_code ?? [],
        apply_yaml: body.apply_yaml === true,
      }, policy),
    );
  });
  app.post("/proposals/:id/reject", async (c) => {
    const { reason } = readRequest(REJECT_REQUEST, (await ctx.authorizedBody(c, "evolve")).body);
    return okResponse(await rejectProposal(dir, c.req.param("id"), reason, policy));
  });
  return app;
}
