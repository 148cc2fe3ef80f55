/**
 * The workbench's proposals of a harness: list, draft (never applied by drafting), show, and the human
 * gate (apply, reject) as a proposal's edit policy.
 *
 * @module
 */

import { Hono } from "hono";
import { applyProposal, rejectProposal } from "../../lib/evolve/decide.ts";
import { proposeImprovement } from "../../lib/evolve/propose.ts";
import { getProposal, listProposals } from "../../lib/hive/proposals.ts";
import { okResponse } from "../../lib/http/response.ts";
import { APPLY_REQUEST, PROPOSE_REQUEST, readRequest, REJECT_REQUEST } from "../../lib/requests.ts";
import { harnessDirOf, harnessRefOf } from "../../lib/workbench/catalog.ts";
import type { WorkbenchApp, WorkbenchContext } from "./context.ts";

/** Proposals in the workbench are decided as proposals: frozen fields stay blocked. */
const POLICY = { policy: "proposal" } as const;

/**
 * The proposal routes.
 *
 * @param ctx The API's context.
 * @returns Their app.
 */
export function proposalRoutes(ctx: WorkbenchContext): WorkbenchApp {
  const app = new Hono();
  const { hive } = ctx;
  app.get("/api/harnesses/:id/proposals", (c) =>
    okResponse({
      // An empty ?status= is every status.
      proposals: listProposals(
        hive,
        harnessRefOf(hive, c.req.param("id")),
        c.req.query("status") || undefined,
      ),
    }));
  app.post("/api/harnesses/:id/proposals", async (c) => {
    const b = readRequest(PROPOSE_REQUEST, await ctx.body(c, true));
    const p = await proposeImprovement(harnessDirOf(hive, c.req.param("id")), {
      trigger: "workbench",
      ...POLICY,
      ...(b.objective ? { objective: b.objective } : {}),
      ...(b.runs ? { runIds: b.runs } : {}),
    });
    return okResponse(p, 201);
  });
  app.get(
    "/api/harnesses/:id/proposals/:pid",
    (c) => okResponse(getProposal(hive, harnessRefOf(hive, c.req.param("id")), c.req.param("pid"))),
  );
  app.post("/api/harnesses/:id/proposals/:pid/apply", async (c) => {
    const b = readRequest(APPLY_REQUEST, await ctx.body(c));
    return okResponse(
      await applyProposal(harnessDirOf(hive, c.req.param("id")), c.req.param("pid"), {
        approve_code: b.approve_code ?? [],
        apply_yaml: b.apply_yaml === true,
      }, POLICY),
    );
  });
  app.post("/api/harnesses/:id/proposals/:pid/reject", async (c) => {
    const { reason } = readRequest(REJECT_REQUEST, await ctx.body(c));
    return okResponse(
      await rejectProposal(
        harnessDirOf(hive, c.req.param("id")),
        c.req.param("pid"),
        reason,
        POLICY,
      ),
    );
  });
  return app;
}
