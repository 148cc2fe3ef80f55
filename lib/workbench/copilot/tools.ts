/**
 * The copilot's constrained tools. Each acts on target harnesses through the library: create (through
 * the construction API), inspect, validate, dry-run, execute (a separate journalled run owned by the
 * target), diagnose, measure, propose (queued, never applied), list tool-approval requests (never
 * decide one: a person does), and the three memory tools. The
 * selected harness and run belong to the chat request that runs them, never to the process.
 *
 * @module
 */

import type { Tool } from "../../tools/tool.ts";
import type { CopilotContext } from "./tools/base.ts";
import { approvalTools } from "./tools/approval_tools.ts";
import { forkTools } from "./tools/fork_tools.ts";
import { harnessTools } from "./tools/harness_tools.ts";
import { interfaceTools } from "./tools/interface_tools.ts";
import { improveTools } from "./tools/improve_tools.ts";
import { memoryTools } from "./tools/memory_tools.ts";
import { runTools } from "./tools/run_tools.ts";

export type { CopilotContext } from "./tools/base.ts";

/**
 * The copilot's tools for one chat request.
 *
 * @param ctx The request's context.
 * @returns The tools.
 */
export function copilotTools(ctx: CopilotContext): Tool[] {
  return [
    ...harnessTools(ctx),
    ...runTools(ctx),
    ...approvalTools(ctx),
    ...forkTools(ctx),
    ...interfaceTools(ctx),
    ...improveTools(ctx),
    ...memoryTools(ctx),
  ];
}

/**
 * The names of the copilot's tools (for the catalog and documentation), read from the tools
 * themselves: a tool only touches its context when it runs.
 *
 * @returns The names, in the order the copilot is offered them.
 */
export function copilotToolNames(): string[] {
  return copilotTools({} as CopilotContext).map((t) => t.spec.name);
}
