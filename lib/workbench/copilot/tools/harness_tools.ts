/**
 * The copilot's harness tools: list, builtins, create (all or nothing, builtins only), inspect,
 * validate, dry run, and set one field (as a remote caller: frozen fields are refused).
 *
 * @module
 */

import { specPath } from "../../../paths.ts";
import { createHarness } from "../../../construct/create_harness.ts";
import { setField } from "../../../construct/set_field.ts";
import { harnessStats } from "../../../hive/stats.ts";
import { composeSystemPrompt } from "../../../runner/prompt.ts";
import { builtinCatalog } from "../../../harness_spec/builtins.ts";
import { loadSpec } from "../../../harness_spec/load.ts";
import type { Tool } from "../../../tools/tool.ts";
import { buildToolset } from "../../../tools/toolset.ts";
import { validateHarness } from "../../../validate/validate.ts";
import { catalogTree, registerHarnessDir } from "../../catalog.ts";
import {
  type Args,
  artifact,
  COPILOT_ACTOR,
  COPILOT_POLICY,
  type CopilotContext,
  HARNESS,
  str,
  target,
  tool,
} from "./base.ts";

const CREATE_SCHEMA = {
  id: { type: "string", description: "Slug id: lowercase letters, digits and '-'" },
  name: { type: "string" },
  description: { type: "string" },
  instructions: { type: "string", description: "The system prompt" },
  tools: {
    type: "array",
    items: { type: "string" },
    description: "Builtin tool names (list_builtins)",
  },
  validators: {
    type: "array",
    items: { type: "object" },
    description: 'Builtin validator entries, e.g. {"builtin": "regex", "pattern": "..."}',
  },
  skills: {
    type: "array",
    items: {
      type: "object",
      properties: {
        name: { type: "string" },
        description: { type: "string" },
        instructions: { type: "string" },
      },
    },
  },
};

/** A list argument (absent is empty). */
function list<T>(args: Args, name: string): T[] {
  const v = args[name];
  return v === undefined || v === null ? [] : (v as T[]);
}

/**
 * The harness tools of one chat request.
 *
 * @param ctx The request's context.
 * @returns The tools.
 */
export function harnessTools(ctx: CopilotContext): Tool[] {
  return [
    tool(
      "list_harnesses",
      "List the harnesses of the workbench (forks and nested harnesses under their parent).",
      {},
      [],
      async () => await catalogTree(ctx.hive),
    ),
    tool(
      "list_builtins",
      "List the builtin tools, guardrails and validators a harness may use, with their options.",
      {},
      [],
      () => Promise.resolve(builtinCatalog()),
    ),
    tool(
      "create_harness",
      "Create a new harness through the construction API and select it. A failed creation leaves nothing behind.",
      CREATE_SCHEMA,
      ["id"],
      async (args) => {
        const id = str(args, "id", true)!;
        const made = await createHarness(ctx.harnessesDir, {
          id,
          ...optional(args, ["name", "description", "instructions"]),
          tools: list<string>(args, "tools"),
          validators: list<Record<string, unknown>>(args, "validators"),
          skills: list<{ name: string; description: string; instructions: string }>(
            args,
            "skills",
          ),
        }, { actor: COPILOT_ACTOR, policy: COPILOT_POLICY });
        await registerHarnessDir(ctx.hive, made.dir);
        ctx.selection.harness_id = id;
        ctx.selection.run_id = null;
        const spec = await Deno.readTextFile(specPath(made.dir));
        artifact(ctx, "harness", `Created ${id}`, spec, id);
        return { created: id, dir: made.dir, selected: true, harness_yaml: spec };
      },
    ),
    tool(
      "inspect_harness",
      "Show a harness's harness.yaml, its validation result and its run statistics.",
      HARNESS,
      [],
      async (args) => {
        const { id, dir } = target(ctx, args);
        const text = await Deno.readTextFile(specPath(dir));
        const validation = await validateHarness(dir, { code: false });
        return {
          id,
          dir,
          harness_yaml: text.length > 12_000 ? `${text.slice(0, 12_000)}\n…` : text,
          valid: validation.valid,
          issues: validation.issues,
          runs: harnessStats(ctx.hive, { id, dir }).runs,
        };
      },
    ),
    tool(
      "validate_harness",
      "Validate a harness fully (schema, cross-field rules, code refs).",
      HARNESS,
      [],
      async (args) => {
        const { id, dir } = target(ctx, args);
        return { id, ...(await validateHarness(dir)) };
      },
    ),
    tool(
      "dry_run",
      "Compose what a run would send (system prompt, tools, skills, validators, guardrails, limits) without calling a model.",
      { ...HARNESS, input: { type: "string" } },
      [],
      async (args) => {
        const { id, dir } = target(ctx, args);
        const { spec } = await loadSpec(dir);
        const { tools, problems } = await buildToolset(spec);
        return {
          id,
          model: spec.model,
          system: composeSystemPrompt(spec),
          first_message: str(args, "input") ?? null,
          tools: [...tools.values()].map((t) => t.spec),
          not_loaded: problems,
          skills: (spec.skills ?? []).map((s) => ({ name: s.name, description: s.description })),
          validators: spec.verify?.validators ?? [],
          guardrails: spec.guardrails ?? [],
          limits: spec.limits ?? {},
        };
      },
    ),
    tool(
      "set_field",
      "Set one dotted field of a harness (safety fields and tools are refused: the user changes those).",
      { ...HARNESS, path: { type: "string" }, value: { description: "The new value, typed JSON" } },
      ["path", "value"],
      async (args) => {
        const { id, dir } = target(ctx, args);
        const r = await setField(dir, str(args, "path", true)!, args.value, {
          actor: COPILOT_ACTOR,
          policy: COPILOT_POLICY,
        });
        return { id, path: r.path, old: r.old, new: r.new, spec_version: r.spec_version };
      },
    ),
  ];
}

/** The string arguments given among `names`. */
function optional(args: Args, names: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const n of names) {
    const v = str(args, n);
    if (v !== undefined) out[n] = v;
  }
  return out;
}
