/**
 * The copilot's fork tools: fork a run at one of its model calls (a new harness beside its parent,
 * named with a slug, never a path) and resume a fork from the journal. The same library functions and
 * rules as the page and the CLI; a model override follows the live-change rule (no new credential
 * destination).
 *
 * @module
 */

import { readRequest } from "../../../requests.ts";
import { FORK_REQUEST, forkRun, resumeFork } from "../../../runs/forks.ts";
import { ToolError } from "../../../tools/tool.ts";
import { runOutcome } from "../../../run_types.ts";
import { artifact, COPILOT_ACTOR, type CopilotContext, str, target, tool } from "./base.ts";
import { targetRun } from "../../runs.ts";

/**
 * The fork tools of one chat request.
 *
 * @param ctx The request's context.
 * @returns The tools.
 */
export function forkTools(ctx: CopilotContext) {
  return [
    tool(
      "fork_run",
      "Fork a run at one of its model calls (the seq of a model_call event) into a new harness beside its parent, optionally with another model; resume it with resume_fork.",
      {
        run_id: { type: "string", description: "Default: the selected run" },
        at: { type: "integer", description: "The seq of a model_call event of the run" },
        name: { type: "string", description: "The fork's id: a slug" },
        model: { type: "string", description: "provider:name (default: the parent's model)" },
      },
      ["at", "name"],
      async (args) => {
        const runId = str(args, "run_id") ?? ctx.selection.run_id;
        if (!runId) throw new ToolError("no_run", "No run is selected; name one");
        if (typeof args.at !== "number") {
          throw new ToolError("invalid_arguments", "`at` must be the seq of a model_call");
        }
        const row = targetRun(ctx.hive, runId);
        const model = str(args, "model");
        const request = readRequest(FORK_REQUEST, {
          at: args.at,
          name: str(args, "name", true),
          ...(model ? { model } : {}),
        });
        const fork = await forkRun(ctx.hive, row.run_id, request, COPILOT_ACTOR);
        ctx.selection.harness_id = fork.harness.id;
        ctx.selection.run_id = null;
        artifact(
          ctx,
          "harness",
          `Fork ${fork.harness.id} of ${row.harness_id}`,
          fork,
          fork.harness.id,
        );
        return fork;
      },
    ),
    tool(
      "resume_fork",
      "Resume a fork (default: the selected harness) from the point it was forked at: the parent's prefix is replayed from its verified journal, then the run goes on live. Answers when the run ends.",
      { harness: { type: "string", description: "The fork's id (default: the selected harness)" } },
      [],
      async (args) => {
        const { id, dir } = target(ctx, args);
        const run = await resumeFork(ctx.hive, ctx.runs, dir);
        ctx.onTargetRun?.({ run_id: run.run_id, harness_id: id });
        const r = await run.result;
        ctx.selection.harness_id = id;
        ctx.selection.run_id = r.run_id;
        artifact(ctx, "run", `Resumed ${id}: ${runOutcome(r.status, r.error?.reason)}`, r, id);
        return {
          run_id: r.run_id,
          status: r.status,
          output: r.output,
          cost_usd: r.cost_usd,
          ...(r.error ? { error: r.error } : {}),
        };
      },
    ),
  ];
}
