/**
 * The copilot's constrained tools. Each acts on target harnesses through the library: create (through
 * the construction API), inspect, validate, dry-run, execute (a separate journalled run owned by the
 * target), diagnose, measure, propose (queued, never applied), and the three memory tools. The
 * selected harness and run belong to the chat request that runs them, never to the process.
 *
 * @module
 */

import { join, resolve } from "node:path";
import { addItem } from "../../construct/add_item.ts";
import { initHarness } from "../../construct/init_harness.ts";
import { setField } from "../../construct/set_field.ts";
import { asFrameworkError, badInput } from "../../errors.ts";
import { proposeImprovement } from "../../evolve/propose.ts";
import type { Hive } from "../../hive/open.ts";
import { harnessStats } from "../../hive/stats.ts";
import { foldContext } from "../../journal/fold.ts";
import { getTrace } from "../../journal/trace.ts";
import { composeSystemPrompt } from "../../runner/prompt.ts";
import { startRun } from "../../runner/start_run.ts";
import { builtinCatalog } from "../../spec/builtins.ts";
import { loadSpec } from "../../spec/load.ts";
import { isSlug, SLUG_RULE } from "../../spec/schema.ts";
import { validateHarness } from "../../spec/validate.ts";
import { type Tool, ToolError } from "../../tools/tool.ts";
import { buildToolset } from "../../tools/toolset.ts";
import { catalogTree, harnessDirOf, harnessRefOf, registerHarnessDir } from "../catalog.ts";
import { addArtifact } from "../conversations.ts";
import type { WorkbenchDb } from "../db.ts";
import { forgetMemory, listMemories, rememberMemory } from "../memories.ts";

/** What the copilot's tools act on: owned by one chat request. */
export interface CopilotContext {
  hive: Hive;
  db: WorkbenchDb;
  conversationId: string;
  /** The selected harness and run of this request; tools may change them (saved with the turn). */
  selection: { harness_id: string | null; run_id: string | null };
  /** Where `create_harness` makes new harnesses. */
  harnessesDir: string;
  /** Artifacts made during this turn. */
  artifacts: string[];
}

type Args = Record<string, unknown>;

function str(args: Args, name: string, required = false): string | undefined {
  const v = args[name];
  if (v === undefined || v === null || v === "") {
    if (required) throw new ToolError("invalid_arguments", `Missing ${JSON.stringify(name)}`);
    return undefined;
  }
  if (typeof v !== "string") {
    throw new ToolError("invalid_arguments", `${JSON.stringify(name)} must be a string`);
  }
  return v;
}

/** The harness a tool acts on: the named one, else the selected one. */
function target(ctx: CopilotContext, args: Args): { id: string; dir: string } {
  const id = str(args, "harness") ?? ctx.selection.harness_id;
  if (!id) {
    throw new ToolError(
      "no_harness",
      "No harness is selected; name one (list_harnesses shows them)",
    );
  }
  return { id, dir: harnessDirOf(ctx.hive, id) };
}

/** Runs a tool body; framework errors become tool errors the copilot sees. */
async function guarded(fn: () => Promise<unknown>): Promise<string> {
  try {
    const out = await fn();
    return typeof out === "string" ? out : JSON.stringify(out, null, 2);
  } catch (err) {
    if (err instanceof ToolError) throw err;
    const e = asFrameworkError(err);
    if (e.kind === "internal") {
      console.error("copilot tool failed:", (e as { cause?: unknown }).cause ?? err);
    }
    throw new ToolError(e.kind, e.message);
  }
}

function tool(
  name: string,
  description: string,
  properties: Record<string, unknown>,
  required: string[],
  run: (args: Args) => Promise<unknown>,
): Tool {
  return {
    source: "builtin",
    spec: {
      name,
      description,
      parameters: { type: "object", properties, required, additionalProperties: false },
    },
    run: (args) => guarded(() => run(args)),
  };
}

const HARNESS = {
  harness: { type: "string", description: "Harness id (default: the selected harness)" },
};

/**
 * The copilot's tools for one chat request.
 *
 * @param ctx The request's context.
 * @returns The tools.
 */
export function copilotTools(ctx: CopilotContext): Tool[] {
  const artifact = (kind: string, title: string, content: unknown, harnessId: string | null) => {
    const a = addArtifact(ctx.db, {
      conversation_id: ctx.conversationId,
      message_id: null,
      kind,
      title,
      content: typeof content === "string" ? content : JSON.stringify(content, null, 2),
      harness_id: harnessId,
    });
    ctx.artifacts.push(a.id);
    return a.id;
  };

  return [
    tool(
      "list_harnesses",
      "List the harnesses of the workbench (forks and nested harnesses under their parent).",
      {},
      [],
      async () => {
        return await catalogTree(ctx.hive);
      },
    ),

    tool(
      "list_builtins",
      "List the builtin tools, guardrails and validators a harness may use, with their options.",
      {},
      [],
      () => {
        return Promise.resolve(builtinCatalog());
      },
    ),

    tool(
      "create_harness",
      "Create a new harness through the construction API and select it. A failed creation leaves nothing behind.",
      {
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
      },
      ["id"],
      async (args) => {
        const id = str(args, "id", true)!;
        if (!isSlug(id)) {
          throw badInput(`Invalid id ${JSON.stringify(id)}: ${SLUG_RULE}`);
        }
        const dir = resolve(ctx.harnessesDir, id);
        try {
          await Deno.lstat(dir);
          throw badInput(`A folder ${id} already exists in ${ctx.harnessesDir}; choose another id`);
        } catch (err) {
          if (!(err instanceof Deno.errors.NotFound)) throw err;
        }
        const who = { actor: "workbench:copilot", caller: "cli" as const };
        try {
          await Deno.mkdir(ctx.harnessesDir, { recursive: true });
          const name = str(args, "name");
          const made = await initHarness(dir, {
            template: "blank",
            id,
            ...(name ? { name } : {}),
            actor: who.actor,
          });
          const description = str(args, "description");
          if (description) await setField(made.dir, "description", description, who);
          const instructions = str(args, "instructions");
          if (instructions) await setField(made.dir, "instructions", instructions, who);
          for (const t of (args.tools as unknown[] | undefined) ?? []) {
            await addItem(made.dir, "tool", { builtin: t }, who);
          }
          for (const v of (args.validators as unknown[] | undefined) ?? []) {
            await addItem(made.dir, "validator", v, who);
          }
          for (const s of (args.skills as unknown[] | undefined) ?? []) {
            await addItem(made.dir, "skill", s, who);
          }
          await registerHarnessDir(ctx.hive, made.dir);
          ctx.selection.harness_id = id;
          ctx.selection.run_id = null;
          const spec = await Deno.readTextFile(join(made.dir, "harness.yaml"));
          artifact("harness", `Created ${id}`, spec, id);
          return { created: id, dir: made.dir, selected: true, harness_yaml: spec };
        } catch (err) {
          // Creation is all or nothing: the incomplete folder goes.
          await Deno.remove(dir, { recursive: true }).catch(() => {});
          throw err;
        }
      },
    ),

    tool(
      "inspect_harness",
      "Show a harness's harness.yaml, its validation result and its run statistics.",
      HARNESS,
      [],
      async (args) => {
        const { id, dir } = target(ctx, args);
        const text = await Deno.readTextFile(join(dir, "harness.yaml"));
        const validation = await validateHarness(dir, { code: false });
        const stats = harnessStats(ctx.hive, { id, dir });
        return {
          id,
          dir,
          harness_yaml: text.length > 12_000 ? `${text.slice(0, 12_000)}\n…` : text,
          valid: validation.valid,
          issues: validation.issues,
          runs: stats.runs,
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
      "execute_run",
      "Run a harness once with an input (a separate journalled run owned by that harness) and select the run.",
      {
        ...HARNESS,
        input: { type: "string" },
        input_file: { type: "string", description: "A file inside the harness folder" },
      },
      [],
      async (args) => {
        const { id, dir } = target(ctx, args);
        const input = str(args, "input");
        const input_file = str(args, "input_file");
        if (input === undefined && input_file === undefined) {
          throw badInput("Give input or input_file");
        }
        const run = await startRun(dir, {
          ...(input !== undefined ? { input } : {}),
          ...(input_file ? { input_file } : {}),
        });
        const r = await run.result;
        ctx.selection.harness_id = id;
        ctx.selection.run_id = r.run_id;
        artifact("run", `Run of ${id}: ${r.status}`, r, id);
        return {
          run_id: r.run_id,
          harness_id: id,
          status: r.status,
          output: r.output,
          cost_usd: r.cost_usd,
          turns: r.turns,
          failure_signature: r.failure_signature,
          ...(r.error ? { error: r.error } : {}),
        };
      },
    ),

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
          tool_errors: trace.events.filter((e) => e.type === "tool_result" && !e.payload.ok).map((
            e,
          ) => ({ seq: e.seq, ...e.payload })),
          guardrails: trace.events.filter((e) => e.type === "guardrail").map((e) => e.payload),
          verify: trace.events.filter((e) => e.type === "verify").map((e) => e.payload),
          last_context: folded &&
            { seq: folded.seq, turn: folded.turn, messages: folded.messages.slice(-8) },
        };
      },
    ),

    tool(
      "measure_harness",
      "Measure a harness: success rate, cost, turns, durations and failure groups.",
      HARNESS,
      [],
      (args) => {
        const { id, dir } = target(ctx, args);
        const s = harnessStats(ctx.hive, { id, dir });
        return Promise.resolve({
          id,
          runs: s.runs,
          failure_groups: s.failure_groups,
          recent_failures: s.recent_failures,
        });
      },
    ),

    tool(
      "propose_improvement",
      "Draft an improvement proposal for a harness from its failures. It is queued for a person to review; it is never applied here.",
      { ...HARNESS, objective: { type: "string" } },
      [],
      async (args) => {
        const { id, dir } = target(ctx, args);
        const objective = str(args, "objective");
        const p = await proposeImprovement(dir, {
          trigger: "workbench",
          caller: "proposal",
          ...(objective ? { objective } : {}),
        });
        artifact("proposal", `Proposal for ${id}`, { id: p.id, rationale: p.rationale }, id);
        return {
          proposal_id: p.id,
          status: p.status,
          rationale: p.rationale,
          yaml_changes: p.yaml_changes.map((c) => ({ path: c.path, op: c.op, status: c.status })),
          code_changes: p.code_changes.map((c) => ({ id: c.id, path: c.path, status: c.status })),
          note: "Queued for review in the Improve tab; nothing was applied.",
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
          actor: "workbench:copilot",
          caller: "http",
        });
        return { id, path: r.path, old: r.old, new: r.new, spec_version: r.spec_version };
      },
    ),

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
          })
            .map((m) => ({
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

/** Names of the copilot's tools, for documentation and tests. */
export const COPILOT_TOOL_NAMES = [
  "list_harnesses",
  "list_builtins",
  "create_harness",
  "inspect_harness",
  "validate_harness",
  "dry_run",
  "execute_run",
  "diagnose_run",
  "measure_harness",
  "propose_improvement",
  "set_field",
  "recall_memories",
  "remember_memory",
  "forget_memory",
] as const;
