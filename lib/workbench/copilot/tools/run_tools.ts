/**
 * The copilot's run tools: execute a target harness (a separate journalled run owned by the target,
 * through the run service and its trust check), steer or stop a run it started, diagnose a run,
 * measure a harness.
 *
 * @module
 */

import { readRequest, RUN_REQUEST } from "../../../requests.ts";
import { harnessStats } from "../../../hive/stats.ts";
import { foldContext } from "../../../journal/fold.ts";
import { getTrace } from "../../../journal/trace.ts";
import type { RunResult } from "../../../run_types.ts";
import { runOutcome } from "../../../run_types.ts";
import { type Tool, ToolError } from "../../../tools/tool.ts";
import { runControls, stopRun } from "../../../runs/controls.ts";
import { measureProposal } from "../../../evals/measure_proposal.ts";
import { runEval } from "../../../evals/run_eval.ts";
import { harnessRefOf } from "../../catalog.ts";
import { listArtifacts } from "../../conversations.ts";
import { runHandOffs, targetRun } from "../../runs.ts";
import {
  artifact,
  COPILOT_ACTOR,
  type CopilotContext,
  HARNESS,
  str,
  target,
  tool,
} from "./base.ts";

/** The run id a run artifact holds. */
function runIdOf(content: string): unknown {
  try {
    return (JSON.parse(content) as { run_id?: unknown } | null)?.run_id;
  } catch {
    return undefined;
  }
}

/**
 * What a run that handed work over says beyond its result: the peers that fitted but were not used
 * (referrals) and the hand-offs declined, read from its journal (nothing for a run that delegated
 * nothing, whose journal is not read).
 */
async function referralsOf(
  ctx: CopilotContext,
  r: RunResult,
): Promise<{ referrals?: unknown[]; declined?: string[] }> {
  if (!r.delegations?.length) return {};
  const h = (await runHandOffs(ctx.hive, r.run_id)).hand_offs;
  return {
    ...(h.referrals.length ? { referrals: h.referrals } : {}),
    ...(h.declined.length ? { declined: h.declined } : {}),
  };
}

/**
 * The run tools of one chat request.
 *
 * @param ctx The request's context.
 * @returns The tools.
 */
export function runTools(ctx: CopilotContext): Tool[] {
  return [
    tool(
      "execute_run",
      "Run a harness once with an input (a separate journalled run owned by that harness) and select the run. With wait: false it answers at once with the run id, so the run can be steered (steer_run) while it goes.",
      {
        ...HARNESS,
        input: { type: "string" },
        input_file: { type: "string", description: "A file inside the harness folder" },
        wait: { type: "boolean", description: "Wait for the result (default true)" },
      },
      [],
      async (args) => {
        const { id, dir } = target(ctx, args);
        const input = str(args, "input");
        const input_file = str(args, "input_file");
        const request = readRequest(RUN_REQUEST, {
          ...(input !== undefined ? { input } : {}),
          ...(input_file ? { input_file } : {}),
        });
        const run = await ctx.runs.submit(dir, request);
        ctx.onTargetRun?.({ run_id: run.run_id, harness_id: id });
        if (args.wait === false) {
          await run.started;
          ctx.selection.harness_id = id;
          ctx.selection.run_id = run.run_id;
          const started = { run_id: run.run_id, harness_id: id, status: "running" };
          artifact(ctx, "run", `Run of ${id}: running`, started, id);
          return { ...started, note: "Steer it with steer_run; its trace follows it live." };
        }
        const r = await run.result;
        ctx.selection.harness_id = id;
        ctx.selection.run_id = r.run_id;
        const handedOver = await referralsOf(ctx, r);
        artifact(
          ctx,
          "run",
          `Run of ${id}: ${runOutcome(r.status, r.error?.reason)}`,
          { ...r, ...handedOver },
          id,
        );
        return {
          run_id: r.run_id,
          harness_id: id,
          status: r.status,
          output: r.output,
          cost_usd: r.cost_usd,
          turns: r.turns,
          failure_signature: r.failure_signature,
          ...(r.error ? { error: r.error } : {}),
          delegations: r.delegations ?? [],
          delegated_cost_usd: r.delegated_cost_usd ?? 0,
          ...handedOver,
        };
      },
    ),
    steerRunTool(ctx),
    stopRunTool(ctx),
    tool(
      "diagnose_run",
      "Diagnose a run: status, failure signature, hash-chain integrity, tool errors and the context the model saw last.",
      { run_id: { type: "string", description: "Default: the selected run" }, ...HARNESS },
      [],
      async (args) => {
        const runId = str(args, "run_id") ?? ctx.selection.run_id;
        if (!runId) throw new ToolError("no_run", "No run is selected; name one");
        const harnessId = str(args, "harness") ?? ctx.selection.harness_id;
        const harness = harnessId ? harnessRefOf(ctx.hive, harnessId) : null;
        const trace = await getTrace(ctx.hive, harness, runId);
        const lastCall = trace.events.findLast((e) => e.type === "model_call");
        const folded = lastCall ? foldContext(trace.events, lastCall.seq) : null;
        ctx.selection.run_id = runId;
        return {
          run_id: trace.run_id,
          harness_id: trace.harness_id,
          status: trace.status,
          integrity: trace.integrity,
          failure_signature: trace.run.failure_signature,
          error: trace.run.error,
          turns: trace.run.turns,
          tool_errors: trace.events.filter((e) => e.type === "tool_result" && !e.payload.ok)
            .map((e) => ({ seq: e.seq, ...e.payload })),
          guardrails: trace.events.filter((e) => e.type === "guardrail").map((e) => e.payload),
          verify: trace.events.filter((e) => e.type === "verify").map((e) => e.payload),
          last_context: folded &&
            { seq: folded.seq, turn: folded.turn, messages: folded.messages.slice(-8) },
        };
      },
    ),
    measureHarnessTool(ctx),
  ];
}

/** Steers a live run this conversation started, through the same library function as the page. */
function steerRunTool(ctx: CopilotContext): Tool {
  return tool(
    "steer_run",
    "Send a steering message to a live run this conversation started: the run's model reads it as a user message at its next turn boundary.",
    {
      run_id: { type: "string", description: "Default: the selected run" },
      text: { type: "string", description: "What to tell the running agent" },
    },
    ["text"],
    (args) => {
      const runId = startedHere(ctx, str(args, "run_id"), "steer");
      const message = runControls(ctx.hive, runId, targetRun).steer(str(args, "text", true)!);
      return Promise.resolve({ message, note: "Delivered at the run's next turn boundary." });
    },
  );
}

/**
 * The run a control names (default: the selected one), which this conversation must have started:
 * the copilot controls its own runs, never a person's or another conversation's.
 */
function startedHere(ctx: CopilotContext, named: string | undefined, verb: string): string {
  const runId = named ?? ctx.selection.run_id;
  if (!runId) throw new ToolError("no_run", "No run is selected; name one");
  const started = listArtifacts(ctx.db, ctx.conversationId).some((a) =>
    a.kind === "run" && runIdOf(a.content) === runId
  );
  if (!started) {
    throw new ToolError(
      "refused",
      `Run ${runId} was not started in this conversation; ${verb} only runs you started with execute_run`,
    );
  }
  return runId;
}

/** Stops a live run this conversation started, through the same library function as the page. */
function stopRunTool(ctx: CopilotContext): Tool {
  return tool(
    "stop_run",
    "Stop a live run this conversation started: at its next turn boundary (the call in flight finishes), or at once with now: true.",
    {
      run_id: { type: "string", description: "Default: the selected run" },
      now: { type: "boolean", description: "Abort what is in flight (default false)" },
    },
    [],
    (args) => {
      const runId = startedHere(ctx, str(args, "run_id"), "stop");
      const control = stopRun(
        ctx.hive,
        runId,
        { now: args.now === true, by: COPILOT_ACTOR },
        targetRun,
      );
      return Promise.resolve({ run_id: runId, control });
    },
  );
}

/** Measures a harness: live figures, an eval set, or a proposal before it is applied. */
function measureHarnessTool(ctx: CopilotContext): Tool {
  return tool(
    "measure_harness",
    "Measure a harness: success rate, cost, turns, durations and failure groups of its live runs. With `set` (or `eval: true` for its only set), also run that eval set (evals/<set>.yaml); with `proposal_id`, measure the proposal's YAML on the set before it is applied (on a temporary copy; nothing is applied).",
    {
      ...HARNESS,
      set: { type: "string", description: "An eval set to run" },
      eval: { type: "boolean", description: "Run the eval set: `set`, or the harness's only one" },
      proposal_id: { type: "string", description: "A queued proposal to measure on the set" },
    },
    [],
    async (args) => {
      const { id, dir } = target(ctx, args);
      const s = harnessStats(ctx.hive, { id, dir });
      const set = str(args, "set");
      const proposalId = str(args, "proposal_id");
      const live = {
        id,
        runs: s.runs,
        failure_groups: s.failure_groups,
        recent_failures: s.recent_failures,
      };
      if (proposalId) {
        const m = await measureProposal(ctx.hive, ctx.runs, dir, proposalId, set ? { set } : {});
        return { ...live, proposal: m };
      }
      if (set || args.eval === true) {
        return { ...live, eval: await runEval(ctx.hive, ctx.runs, dir, set ? { set } : {}) };
      }
      return live;
    },
  );
}
