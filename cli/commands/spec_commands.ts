/**
 * Verbs over `harness.yaml`: init, validate, get, set, add, remove, schema.
 *
 * @module
 */

import type { Command } from "commander";
import { verbDescription } from "../verb_table.ts";
import { stringify } from "yaml";
import { addItem } from "../../lib/construct/add_item.ts";
import { initHarness } from "../../lib/construct/init_harness.ts";
import { removeItem, type RemoveTarget } from "../../lib/construct/remove_item.ts";
import { setField } from "../../lib/construct/set_field.ts";
import { badInput } from "../../lib/errors.ts";
import { jsonProblem } from "../../lib/json_safety.ts";
import { getField } from "../../lib/harness_spec/get_field.ts";
import { formatIssue } from "../../lib/harness_spec/issues.ts";
import { harnessJsonSchema } from "../../lib/harness_spec/json_schema.ts";
import { evalSetJsonSchema } from "../../lib/harness_spec/eval_set.ts";
import { validateHarness } from "../../lib/validate/validate.ts";
import { TEMPLATES } from "../../lib/templates/templates.ts";
import { type GlobalOptions, runVerb } from "../output.ts";

const CLI = { actor: "cli", policy: "local" } as const;

/** Prints a value for people: scalars bare, collections as YAML. */
function human(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (typeof value !== "object") return String(value);
  return stringify(value, { lineWidth: 0 }).trimEnd();
}

/**
 * Parses a value argument as JSON (`12` is a number, `"12"` a string), or takes it raw with `--string`.
 *
 * @param raw The argument.
 * @param asString Whether `--string` was given.
 * @returns The value.
 */
export function parseValueArgument(raw: string, asString: boolean): unknown {
  if (asString) return raw;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw badInput(
      `Cannot parse the value ${
        JSON.stringify(raw)
      } as JSON: quote a string ('"${raw}"') or pass --string`,
      { value: raw },
    );
  }
  const problem = jsonProblem(value);
  if (problem) throw badInput(`The value is refused: ${problem}`);
  return value;
}

function parseJsonObject(raw: string, what: string): Record<string, unknown> {
  const value = parseValueArgument(raw, false);
  if (!value || typeof value !== "object" || Array.isArray(value)) {
    throw badInput(`${what} must be a JSON object, got ${JSON.stringify(raw)}`);
  }
  return value as Record<string, unknown>;
}

/**
 * Registers the spec verbs.
 *
 * @param program The root command.
 */
export function registerSpecCommands(program: Command): void {
  registerInit(program);
  registerValidate(program);
  registerGet(program);
  registerSet(program);
  registerAdd(program);
  registerRemove(program);
  registerSchema(program);
}

/** Registers `framework init`. */
function registerInit(program: Command): void {
  program.command("init")
    .description(verbDescription("init"))
    .argument("<dir>", "the new harness folder")
    .option("--template <name>", `template: ${Object.keys(TEMPLATES).join(", ")}`, "hello")
    .option("--id <id>", "harness id (default: the folder name as a slug)")
    .option("--name <name>", "display name")
    .option("--json", "print the ok-wrapped JSON result")
    .action((dir: string, o: GlobalOptions & { template: string; id?: string; name?: string }) =>
      runVerb(o, async () => {
        const data = await initHarness(dir, {
          template: o.template,
          ...(o.id ? { id: o.id } : {}),
          ...(o.name ? { name: o.name } : {}),
        });
        return {
          data,
          text:
            `Created harness ${
              JSON.stringify(data.id)
            } in ${data.dir} (template ${data.template}).\n` +
            `Next: framework validate ${dir}`,
        };
      })
    );
}

/** Registers `framework validate`. */
function registerValidate(program: Command): void {
  program.command("validate")
    .description(verbDescription("validate"))
    .argument("<dir>", "the harness folder")
    .option(
      "--connect",
      "also start each MCP server once and list its tools, and fetch each remote peer's agent card",
    )
    .option("--json", "print the ok-wrapped JSON result")
    .action((dir: string, o: GlobalOptions & { connect?: boolean }) =>
      runVerb(o, async () => {
        const data = await validateHarness(dir, { connect: !!o.connect });
        const lines = [
          ...data.issues.map(formatIssue),
          ...(data.mcp ?? []).map((m) => `MCP ${m.server}: ${m.tools.join(", ") || "no tools"}`),
          ...(data.peers ?? []).map((p) =>
            `A2A peer ${p.url}: ${p.card.name} ${p.card.version} at ${
              p.card.endpoint ?? "no JSON-RPC endpoint"
            }; skills: ${p.card.skills.join(", ") || "none"}`
          ),
        ];
        const text = data.valid
          ? [`harness.yaml is valid (spec version ${data.spec_version})`, ...lines].join("\n")
          : [
            `harness.yaml has ${
              data.issues.filter((i) => i.severity === "error").length
            } error(s):`,
            ...lines,
          ]
            .join("\n");
        return { data, text, exitCode: data.valid ? 0 : 2 };
      })
    );
}

/** Registers `framework get`. */
function registerGet(program: Command): void {
  program.command("get")
    .description(verbDescription("get"))
    .argument("<dir>", "the harness folder")
    .argument("[path]", "dotted path")
    .option("--json", "print the ok-wrapped JSON result")
    .action((dir: string, path: string | undefined, o: GlobalOptions) =>
      runVerb(o, async () => {
        const data = await getField(dir, path ?? "");
        return { data, text: human(data.value) };
      })
    );
}

/** Registers `framework set`. */
function registerSet(program: Command): void {
  program.command("set")
    .description(verbDescription("set"))
    .argument("<dir>", "the harness folder")
    .argument("<path>", "dotted path, e.g. limits.max_turns")
    .argument("<value>", "the value as JSON (or raw text with --string)")
    .option("--string", "take the value as a raw string")
    .option("--json", "print the ok-wrapped JSON result")
    .action((dir: string, path: string, raw: string, o: GlobalOptions & { string?: boolean }) =>
      runVerb(o, async () => {
        const value = parseValueArgument(raw, !!o.string);
        const r = await setField(dir, path, value, CLI);
        const data = {
          path: r.path,
          old: r.old,
          new: r.new,
          spec_version: r.spec_version,
          changed: r.changed,
        };
        return {
          data,
          text: r.changed
            ? `${path}: ${JSON.stringify(r.old)} -> ${JSON.stringify(r.new)}`
            : `${path} unchanged`,
        };
      })
    );
}

/** Registers `framework add`. */
function registerAdd(program: Command): void {
  program.command("add")
    .description(verbDescription("add"))
    .argument("<dir>", "the harness folder")
    .argument("<kind>", "skill | tool | validator | guardrail | hook")
    .argument("[item]", "the entry as a JSON object (flags below override its fields)")
    .option("--name <name>", "entry name")
    .option("--description <text>", "description")
    .option("--instructions <text>", "skill instructions")
    .option("--builtin <name>", "builtin name (tools, validators, guardrails)")
    .option("--code <ref>", "code ref path/module.ts#export")
    .option("--on <event>", "hook event: run_start | before_model_call | after_tool_call | run_end")
    .option("--option <key=json>", "an option of the entry (repeatable)", collect, [])
    .option("--json", "print the ok-wrapped JSON result")
    .addHelpText(
      "after",
      `\nExamples:\n  framework add ./h skill --name refunds --description "Refund requests" --instructions "Ask for the order id."\n` +
        `  framework add ./h validator --builtin regex --option 'pattern="order #\\\\d+"'\n` +
        `  framework add ./h tool '{"code": "tools/lookup.ts#lookup", "description": "Look up an order"}'`,
    )
    .action((dir: string, kind: string, raw: string | undefined, o: AddFlags) =>
      runVerb(o, async () => {
        const item: Record<string, unknown> = raw ? parseJsonObject(raw, "The item") : {};
        for (
          const key of ["name", "description", "instructions", "builtin", "code", "on"] as const
        ) {
          if (o[key] !== undefined) item[key] = o[key];
        }
        for (const pair of o.option) {
          const eq = pair.indexOf("=");
          if (eq <= 0) {
            throw badInput(`Invalid --option ${JSON.stringify(pair)}: expected key=value`);
          }
          const value = pair.slice(eq + 1);
          let parsed: unknown;
          try {
            parsed = JSON.parse(value);
          } catch {
            parsed = value;
          }
          item[pair.slice(0, eq)] = parsed;
        }
        const r = await addItem(dir, kind, item, CLI);
        return {
          data: { kind: r.kind, name: r.name, spec_version: r.spec_version },
          text: `Added ${r.kind} ${JSON.stringify(r.name)}`,
        };
      })
    );
}

/** Registers `framework remove`. */
function registerRemove(program: Command): void {
  program.command("remove")
    .description(verbDescription("remove"))
    .argument("<dir>", "the harness folder")
    .argument("[path]", "dotted path, e.g. skills.refunds or limits.max_cost_usd")
    .option("--kind <kind>", "skill | tool | validator | guardrail | hook")
    .option("--name <name>", "the entry's name (or builtin name, or code-ref export)")
    .option("--json", "print the ok-wrapped JSON result")
    .action((
      dir: string,
      path: string | undefined,
      o: GlobalOptions & { kind?: string; name?: string },
    ) =>
      runVerb(o, async () => {
        let target: RemoveTarget;
        if (path && (o.kind || o.name)) {
          throw badInput("Give a dotted path or --kind and --name, not both");
        }
        if (path) target = { path };
        else if (o.kind && o.name) target = { kind: o.kind, name: o.name };
        else throw badInput("Missing target: give a dotted path, or --kind and --name");
        const r = await removeItem(dir, target, CLI);
        return {
          data: { removed: r.removed, spec_version: r.spec_version },
          text: `Removed ${r.removed}`,
        };
      })
    );
}

/** Registers `framework schema`. */
function registerSchema(program: Command): void {
  program.command("schema")
    .description(verbDescription("schema"))
    .option("--eval", "the schema of evals/<set>.yaml")
    .option("--json", "print the ok-wrapped JSON result")
    .action((o: GlobalOptions & { eval?: boolean }) =>
      runVerb(o, () => {
        const data = o.eval ? evalSetJsonSchema() : harnessJsonSchema();
        return Promise.resolve({ data, text: JSON.stringify(data, null, 2) });
      })
    );
}

interface AddFlags extends GlobalOptions {
  name?: string;
  description?: string;
  instructions?: string;
  builtin?: string;
  code?: string;
  on?: string;
  option: string[];
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}
