/**
 * The control plane's evolution routes: draft a proposal (never applied by drafting), list and show
 * proposals, and the human gate (apply, reject). Every proposal lookup is bound to the served harness.
 *
 * @module
 */

import { badInput } from "../lib/errors.ts";
import { applyProposal, rejectProposal } from "../lib/evolve/decide.ts";
import { proposeImprovement } from "../lib/evolve/propose.ts";
import { getProposal, listProposals } from "../lib/evolve/proposals_store.ts";
import { openHive } from "../lib/hive/open.ts";
import { readJsonObject } from "../lib/http/body.ts";
import { okResponse } from "../lib/http/response.ts";
import type { ControlPlaneApp, ControlPlaneContext } from "./control_plane.ts";

/** What HTTP callers may not change through a proposal: every HTTP-frozen root. */
const CALLER = "proposal_http" as const;

/**
 * Mounts the evolution routes on a control plane.
 *
 * @param app The control plane's app.
 * @param ctx The control plane's context.
 */
export function mountEvolutionRoutes(app: ControlPlaneApp, ctx: ControlPlaneContext): void {
  app.post("/evolve/propose", async (c) => {
    await ctx.authorize(c, "evolve");
    const body = await readJsonObject(c.req.raw, ctx.maxBodyBytes, { allowEmpty: true });
    for (const key of Object.keys(body)) {
      if (key !== "objective" && key !== "runs") {
        throw badInput(`Unknown field ${JSON.stringify(key)}: send {objective?, runs?}`);
      }
    }
    if (body.objective !== undefined && typeof body.objective !== "string") {
      throw badInput("objective must be a string");
    }
    if (
      body.runs !== undefined &&
      (!Array.isArray(body.runs) || body.runs.some((r) => typeof r !== "string"))
    ) {
      throw badInput("runs must be a list of run ids");
    }
    const proposal = await proposeImprovement(ctx.harnessDir, {
      trigger: "http",
      caller: CALLER,
      ...(body.objective ? { objective: body.objective as string } : {}),
      ...(body.runs ? { runIds: body.runs as string[] } : {}),
    });
    return okResponse(proposal);
  });

  app.get("/proposals", async (c) => {
    await ctx.authorize(c, "read");
    const status = c.req.query("status");
    return okResponse({ proposals: listProposals(openHive(), ctx.harness, status) });
  });

  app.get("/proposals/:id", async (c) => {
    await ctx.authorize(c, "read");
    return okResponse(getProposal(openHive(), ctx.harness, c.req.param("id")));
  });

  app.post("/proposals/:id/apply", async (c) => {
    await ctx.authorize(c, "evolve");
    const body = await readJsonObject(c.req.raw, ctx.maxBodyBytes);
    if (body.approve_code !== undefined && !Array.isArray(body.approve_code)) {
      throw badInput("approve_code must be a list of change ids");
    }
    if (body.apply_yaml !== undefined && typeof body.apply_yaml !== "boolean") {
      throw badInput("apply_yaml must be true or false");
    }
    const proposal = await applyProposal(ctx.harnessDir, c.req.param("id"), {
      approve_code: (body.approve_code as string[] | undefined) ?? [],
      apply_yaml: body.apply_yaml === true,
    }, { caller: CALLER });
    return okResponse(proposal);
  });

  app.post("/proposals/:id/reject", async (c) => {
    await ctx.authorize(c, "evolve");
    const body = await readJsonObject(c.req.raw, ctx.maxBodyBytes);
    if (typeof body.reason !== "string" || !body.reason.trim()) {
      throw badInput('Send {"reason": "why it is rejected"}');
    }
    return okResponse(
      await rejectProposal(ctx.harnessDir, c.req.param("id"), body.reason, { caller: CALLER }),
    );
  });
}
