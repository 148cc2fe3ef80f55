/**
 * The copilot's improvement tool: draft a proposal (queued for a person; never applied here). The
 * evolver's changes go through the evolution gate as a proposal's: frozen fields are blocked.
 *
 * @module
 */

import { proposeImprovement } from "../../../evolve/propose.ts";
import type { Tool } from "../../../tools/tool.ts";
import { artifact, type CopilotContext, HARNESS, str, target, tool } from "./base.ts";

/**
 * The improvement tools of one chat request.
 *
 * @param ctx The request's context.
 * @returns The tools.
 */
export function improveTools(ctx: CopilotContext): Tool[] {
  return [
    tool(
      "propose_improvement",
      "Draft an improvement proposal for a harness from its failures. It is queued for a person to review; it is never applied here.",
      { ...HARNESS, objective: { type: "string" } },
      [],
      async (args) => {
        const { id, dir } = target(ctx, args);
        const objective = str(args, "objective");
        const p = await proposeImprovement(dir, {
          trigger: "workbench",
          policy: "proposal",
          ...(objective ? { objective } : {}),
        });
        artifact(ctx, "proposal", `Proposal for ${id}`, { id: p.id, rationale: p.rationale }, id);
        return {
          proposal_id: p.id,
          status: p.status,
          rationale: p.rationale,
          yaml_changes: p.yaml_changes.map((c) => ({ path: c.path, op: c.op, status: c.status })),
          code_changes: p.code_changes.map((c) => ({ id: c.id, path: c.path, status: c.status })),
          note: "Queued for review in the Improve tab; nothing was applied.",
        };
      },
    ),
  ];
}
