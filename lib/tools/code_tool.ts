/**
 * Code tools: `{code: "tools/lookup.ts#lookup"}` entries, run in the sandbox. The argument schema is
 * the entry's `schema`, else the export's `schema` property (or the module's `schema` export), and the
 * arguments are checked against it before the code runs.
 *
 * @module
 */

import { compileJsonSchema, type SchemaCheck } from "../json_schema.ts";
import type { Grant, SandboxPool } from "./sandbox.ts";
import { type Tool, ToolError } from "./tool.ts";

/** A code tool entry of the spec. */
export interface CodeToolEntry {
  code: string;
  name?: string;
  description?: string;
  schema?: Record<string, unknown>;
  timeout_s?: number;
  permissions?: Grant;
}

const ANY_OBJECT = { type: "object", additionalProperties: true };

/**
 * Loads a code tool's module in the sandbox and builds the tool.
 *
 * @param entry The spec entry.
 * @param name The tool's name.
 * @param sandboxes The run's sandboxes.
 * @param defaultTimeoutS The time limit when the entry sets none.
 * @returns The tool.
 * @throws Error with a readable message when the module or export is missing.
 */
export async function buildCodeTool(
  entry: CodeToolEntry,
  name: string,
  sandboxes: SandboxPool,
  defaultTimeoutS: number,
): Promise<Tool> {
  const box = sandboxes.for(entry.permissions);
  const info = await box.describe(entry.code);
  if (!info.exported) throw new Error(`${entry.code} does not export ${JSON.stringify(name)}`);
  if (info.type !== "function") {
    throw new Error(`${entry.code} exports ${info.type}, not a function`);
  }
  const parameters = entry.schema ?? info.schema ?? ANY_OBJECT;
  let check: SchemaCheck | undefined;
  try {
    check = compileJsonSchema(parameters);
  } catch {
    check = undefined; // a schema zod cannot import is still sent to the model, unchecked here
  }
  const timeoutS = entry.timeout_s ?? defaultTimeoutS;
  const timeoutMs = timeoutS * 1000;
  return {
    source: "code",
    timeout_s: timeoutS,
    spec: {
      name,
      description: entry.description ?? info.description ?? `Code tool ${name} (${entry.code})`,
      parameters,
    },
    async run(args, ctx) {
      const problems = check?.(args) ?? [];
      if (problems.length) {
        throw new ToolError("invalid_arguments", `Invalid arguments: ${problems.join("; ")}`);
      }
      const { value, logs } = await box.call(entry.code, args, {
        harness_dir: ctx.harnessDir,
        run_id: ctx.runId,
        tool: name,
      }, timeoutMs);
      const content = typeof value === "string" ? value : JSON.stringify(value ?? null);
      return { content, logs };
    },
  };
}
