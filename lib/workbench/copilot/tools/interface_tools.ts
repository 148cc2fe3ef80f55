/**
 * The copilot's interface tool: writes the harness's page (as `framework generate`) and returns it
 * as an artifact of kind `interface`, previewed in the Use tab.
 *
 * @module
 */

import { generateInterface } from "../../../interface/generate.ts";
import {
  INTERFACE_INPUTS,
  INTERFACE_INPUTS_TEXT,
  isInterfaceInput,
} from "../../../interface_inputs.ts";
import type { Tool } from "../../../tools/tool.ts";
import { ToolError } from "../../../tools/tool.ts";
import { artifact, type CopilotContext, HARNESS, str, target, tool } from "./base.ts";

/**
 * The interface tools of one chat request.
 *
 * @param ctx The request's context.
 * @returns The tools.
 */
export function interfaceTools(ctx: CopilotContext): Tool[] {
  return [
    tool(
      "generate_interface",
      "Write the harness's page (interfaces/default/index.html): a self-contained page a person uses to run it, previewed in the Use tab.",
      {
        ...HARNESS,
        input: {
          type: "string",
          enum: [...INTERFACE_INPUTS],
          description: "What it asks for (chat: a conversation, one thread per page session)",
        },
      },
      [],
      async (args) => {
        const { id, dir } = target(ctx, args);
        const input = str(args, "input");
        if (input !== undefined && !isInterfaceInput(input)) {
          throw new ToolError("invalid_arguments", `input must be ${INTERFACE_INPUTS_TEXT}`);
        }
        const made = await generateInterface(dir, {
          ...(input ? { input } : {}),
          force: true,
        });
        ctx.selection.harness_id = id;
        artifact(ctx, "interface", `Page of ${id}`, { harness_id: id, ...made }, id);
        return { harness_id: id, ...made, preview: "Open the Use tab to try it." };
      },
    ),
  ];
}
