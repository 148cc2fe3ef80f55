/**
 * Every code ref of a spec (tools, guardrails, validators, hooks, playbook gates), with its dotted
 * path, so validation and the trust gate look at the same list.
 *
 * @module
 */

import type { HarnessSpec } from "./schema.ts";

/** One code ref in a spec. */
export interface CodeRefUse {
  /** Dotted path of the ref, e.g. `tools.1.code`. */
  path: string;
  /** `path/module.ts#export`. */
  ref: string;
  kind: "tool" | "guardrail" | "validator" | "hook" | "playbook";
  /** The entry's `permissions`, which the code needs to load too. */
  permissions?: Record<string, unknown>;
}

/**
 * Lists the code refs of a spec.
 *
 * @param spec The spec.
 * @returns The refs in spec order.
 */
export function codeRefsOf(spec: HarnessSpec): CodeRefUse[] {
  const out: CodeRefUse[] = [];
  const lists: [string, unknown[] | undefined, CodeRefUse["kind"]][] = [
    ["tools", spec.tools, "tool"],
    ["guardrails", spec.guardrails, "guardrail"],
    ["verify.validators", spec.verify?.validators, "validator"],
    ["hooks", spec.hooks, "hook"],
  ];
  for (const [path, list, kind] of lists) {
    list?.forEach((e, i) => {
      const { code, permissions } = e as { code?: unknown; permissions?: Record<string, unknown> };
      if (typeof code === "string") {
        out.push({
          path: `${path}.${i}.code`,
          ref: code,
          kind,
          ...(permissions ? { permissions } : {}),
        });
      }
    });
  }
  spec.playbooks?.forEach((p, i) => {
    if (p.on_enter) {
      out.push({ path: `playbooks.${i}.on_enter`, ref: p.on_enter, kind: "playbook" });
    }
    if (p.on_exit) out.push({ path: `playbooks.${i}.on_exit`, ref: p.on_exit, kind: "playbook" });
  });
  return out;
}

/**
 * The first code this machine would run for a harness — a code ref, or an MCP server started as a
 * process — so the trust gate of a run and of an evaluation asks the same question.
 *
 * @param spec The spec.
 * @returns The code ref or command, or undefined when the harness runs no code.
 */
export function codeToRun(spec: HarnessSpec): string | undefined {
  return codeRefsOf(spec)[0]?.ref ?? spec.mcp_servers?.find((s) => s.command)?.command;
}
