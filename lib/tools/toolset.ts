/**
 * The tools of a run: the spec's `tools` entries, plus `load_skill` when the harness has skills.
 *
 * @module
 */

import { entryName } from "../spec/entries.ts";
import type { HarnessSpec } from "../spec/schema.ts";
import { BUILTIN_TOOLS } from "./builtin_tools.ts";
import type { Tool } from "./tool.ts";

/** A tool entry that could not be made into a tool, and why. */
export interface ToolProblem {
  name: string;
  message: string;
}

/** The tools of a run by name, and entries that could not be built. */
export interface Toolset {
  tools: Map<string, Tool>;
  problems: ToolProblem[];
}

/**
 * Builds the tools of a spec. Entries with a name override keep their builtin behaviour under that name.
 *
 * @example
 * ```ts
 * const { tools } = buildToolset(spec);
 * tools.get("file_read")?.spec.parameters;
 * ```
 * @param spec The spec snapshot.
 * @returns The tools and any problems.
 */
export function buildToolset(spec: HarnessSpec): Toolset {
  const tools = new Map<string, Tool>();
  const problems: ToolProblem[] = [];
  for (const entry of spec.tools ?? []) {
    const e = entry as Record<string, unknown>;
    const name = entryName(e)!;
    if (typeof e.builtin === "string") {
      const make = BUILTIN_TOOLS[e.builtin];
      if (!make) {
        problems.push({ name, message: `Unknown builtin tool ${JSON.stringify(e.builtin)}` });
        continue;
      }
      const tool = make(e);
      tools.set(name, {
        ...tool,
        spec: {
          ...tool.spec,
          name,
          description: typeof e.description === "string" ? e.description : tool.spec.description,
        },
      });
    } else {
      problems.push({ name, message: "Code tools arrive with the sandboxed code runner" });
    }
  }
  if (spec.skills?.length && !tools.has("load_skill")) {
    tools.set("load_skill", BUILTIN_TOOLS.load_skill!({}));
  }
  return { tools, problems };
}
