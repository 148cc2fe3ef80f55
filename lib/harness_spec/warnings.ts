/**
 * Warnings about a valid spec: things that parse but are probably mistakes.
 *
 * @module
 */

import { matchesToolGlob } from "../tool_glob.ts";
import { entryName } from "./entries.ts";
import type { HarnessSpec } from "./schema.ts";

/** A warning before it is located in the YAML text. */
export interface SpecWarning {
  path: (string | number)[];
  message: string;
}

/**
 * Finds likely mistakes in a valid spec: tool names referenced by `allow_tools` or a playbook that no
 * tool entry provides.
 *
 * @param spec A valid spec.
 * @returns The warnings.
 */
export function specWarnings(spec: HarnessSpec): SpecWarning[] {
  const warnings: SpecWarning[] = [];
  const tools = new Set((spec.tools ?? []).map(entryName).filter((n): n is string => !!n));
  if (spec.skills?.length) tools.add("load_skill");
  if (spec.delegation?.peers?.length) tools.add("delegate");
  const known = [...tools];
  spec.guardrails?.forEach((g, i) => {
    const e = g as Record<string, unknown>;
    if (e.builtin !== "allow_tools") return;
    (e.tools as string[]).forEach((name, j) => {
      if (!tools.has(name)) {
        warnings.push({
          path: ["guardrails", i, "tools", j],
          message: `allow_tools names ${
            JSON.stringify(name)
          }, which no tool entry provides (tools: ${known.join(", ") || "none"})`,
        });
      }
    });
  });
  // A glob of `approvals.tools` that matches no tool does nothing: say so. MCP tools are known only
  // once their server answers, so `server__…` globs are checked against the servers' names.
  const servers = (spec.mcp_servers ?? []).map((s) => s.name);
  spec.approvals?.tools.forEach((glob, i) => {
    const mcp = glob.indexOf("__");
    const matched = mcp > 0
      ? servers.some((s) => matchesToolGlob(s, [glob.slice(0, mcp)]))
      : known.some((t) => matchesToolGlob(t, [glob]));
    if (matched) return;
    warnings.push({
      path: ["approvals", "tools", i],
      message: mcp > 0
        ? `approvals.tools names ${
          JSON.stringify(glob)
        }, but no MCP server of this harness is named like ${
          JSON.stringify(glob.slice(0, mcp))
        } (servers: ${servers.join(", ") || "none"}): it asks for nothing`
        : `approvals.tools names ${
          JSON.stringify(glob)
        }, which matches no tool of this harness (tools: ${
          known.join(", ") || "none"
        }): it asks for nothing`,
    });
  });
  spec.playbooks?.forEach((p, i) => {
    p.tools?.forEach((name, j) => {
      if (!tools.has(name)) {
        warnings.push({
          path: ["playbooks", i, "tools", j],
          message: `Playbook ${JSON.stringify(p.name)} names tool ${
            JSON.stringify(name)
          }, which no tool entry provides`,
        });
      }
    });
  });
  return warnings;
}
