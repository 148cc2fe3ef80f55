/**
 * The tools of a run: the spec's `tools` entries (builtins and sandboxed code), plus `load_skill` when
 * the harness has skills, and `delegate` when it has peers.
 *
 * @module
 */

import { entryName } from "../harness_spec/entries.ts";
import type { HarnessSpec } from "../harness_spec/schema.ts";
import { BUILTIN_TOOLS } from "./builtin_tools.ts";
import { buildCodeTool, type CodeToolEntry } from "./code_tool.ts";
import type { SandboxPool } from "./sandbox.ts";
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
 * Builds the tools of a spec. Entries with a name override keep their behaviour under that name.
 * A code tool whose module or export is missing is left out and reported as a problem.
 *
 * @example
 * ```ts
 * import { loadSpec } from "../harness_spec/load.ts";
 * import { createSandboxPool } from "./sandbox.ts";
 *
 * const { dir, spec } = await loadSpec("./harnesses/hello");
 * const sandboxes = createSandboxPool(dir);
 * const { tools, problems } = await buildToolset(spec, sandboxes, 60);
 * ```
 * @param spec The spec snapshot.
 * @param sandboxes Where code tools run (omit to skip code tools, e.g. for a dry run).
 * @param defaultTimeoutS Time limit of code tools without `timeout_s`.
 * @returns The tools and any problems.
 */
export async function buildToolset(
  spec: HarnessSpec,
  sandboxes?: SandboxPool,
  defaultTimeoutS = 60,
): Promise<Toolset> {
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
      continue;
    }
    if (!sandboxes) {
      problems.push({ name, message: "Code tools are not loaded here" });
      continue;
    }
    try {
      tools.set(
        name,
        await buildCodeTool(e as unknown as CodeToolEntry, name, sandboxes, defaultTimeoutS),
      );
    } catch (err) {
      problems.push({ name, message: (err as Error).message });
    }
  }
  if (spec.delegation?.peers?.length && !tools.has("delegate")) {
    tools.set("delegate", BUILTIN_TOOLS.delegate!({}));
  }
  if (spec.skills?.length && !tools.has("load_skill")) {
    tools.set("load_skill", BUILTIN_TOOLS.load_skill!({}));
  }
  return { tools, problems };
}
