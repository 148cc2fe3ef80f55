/**
 * The copilot's memory tools: recall, remember (only when asked), forget. Memory is explicit: nothing
 * of a conversation becomes a memory unless one of these is called.
 *
 * @module
 */

import { badInput } from "../../../errors.ts";
import type { Tool } from "../../../tools/tool.ts";
import { forgetMemory, listMemories, rememberMemory } from "../../memories.ts";
import { type CopilotContext, HARNESS, str, tool } from "./base.ts";

/**
 * The memory tools of one chat request.
 *
 * @param ctx The request's context.
 * @returns The tools.
 */
export function memoryTools(ctx: CopilotContext): Tool[] {
  return [
    tool(
      "recall_memories",
      "Recall remembered facts: global ones and those of the selected (or named) harness.",
      { ...HARNESS, query: { type: "string", description: "Words that must occur" } },
      [],
      (args) => {
        const harness = str(args, "harness") ?? ctx.selection.harness_id ?? undefined;
        const query = str(args, "query");
        return Promise.resolve(
          listMemories(ctx.db, {
            ...(harness ? { harness_id: harness } : {}),
            ...(query ? { query } : {}),
          }).map((m) => ({
            id: m.id,
            scope: m.scope,
            harness_id: m.harness_id,
            content: m.content,
          })),
        );
      },
    ),
    tool(
      "remember_memory",
      "Remember a fact across conversations. Only when the user asks you to remember, or states a durable preference.",
      {
        content: { type: "string" },
        scope: {
          type: "string",
          enum: ["global", "harness"],
          description: "harness: tied to the selected (or named) harness",
        },
        ...HARNESS,
      },
      ["content", "scope"],
      (args) => {
        const scope = str(args, "scope", true) as "global" | "harness";
        const harness = scope === "harness"
          ? (str(args, "harness") ?? ctx.selection.harness_id)
          : null;
        if (scope === "harness" && !harness) {
          throw badInput("No harness is selected for a harness memory");
        }
        const m = rememberMemory(ctx.db, {
          scope,
          harness_id: harness,
          content: str(args, "content", true)!,
          conversation_id: ctx.conversationId,
        });
        return Promise.resolve({ remembered: m.id, scope: m.scope, harness_id: m.harness_id });
      },
    ),
    tool(
      "forget_memory",
      "Forget a remembered fact by id.",
      { id: { type: "string" } },
      ["id"],
      (args) => {
        const m = forgetMemory(ctx.db, str(args, "id", true)!);
        return Promise.resolve({ forgotten: m.id });
      },
    ),
  ];
}
