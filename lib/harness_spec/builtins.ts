/**
 * The live catalog of builtin entries: every name a `{builtin: NAME}` entry may use, per kind, with a
 * description and the zod shape of its options. The spec schema, `framework schema`, the workbench and
 * the copilot all read builtin names from here, so nothing lists them twice.
 *
 * @module
 */

import * as z from "zod";

/** The kinds of list entries that take `{builtin}` or `{code}` items. */
export type EntryKind = "tool" | "guardrail" | "validator" | "hook";

/** One builtin of the catalog. */
export interface BuiltinInfo {
  /** What the builtin does, shown to users and to models. */
  description: string;
  /** The options the entry may carry besides `builtin`, `name` and `description`. */
  options: z.ZodRawShape;
}

const regexOptions = {
  pattern: z.string().min(1).describe("A JavaScript regular expression"),
  flags: z.string().regex(/^[dgimsuvy]*$/, "expected JavaScript regular expression flags")
    .optional().describe("Regular expression flags, e.g. i"),
};

/** Every builtin per kind. */
export const BUILTINS: Readonly<Record<EntryKind, Readonly<Record<string, BuiltinInfo>>>> = {
  tool: {
    file_read: {
      description:
        "Read a UTF-8 text file inside the harness folder (sensitive paths are refused).",
      options: { max_bytes: z.number().int().positive().optional() },
    },
    file_write: {
      description:
        "Write a UTF-8 text file inside the harness folder (sensitive paths are refused).",
      options: { max_bytes: z.number().int().positive().optional() },
    },
    list_files: {
      description: "List the files of a folder inside the harness folder.",
      options: { max_entries: z.number().int().positive().optional() },
    },
    load_skill: {
      description: "Return the full instructions of one of the harness's skills by name.",
      options: {},
    },
    delegate: {
      description:
        "Hand a task to a peer harness (the fittest eligible one, or the one named) and get its result.",
      options: {},
    },
    switch_playbook: {
      description:
        "Switch to another playbook (mode) of the harness at the end of this turn; the modes' gates decide.",
      options: {},
    },
  },
  guardrail: {
    max_cost: {
      description: "Halt the run after the model call that takes its cost in USD over `usd`.",
      options: { usd: z.number().nonnegative() },
    },
    max_tool_calls: {
      description: "Halt the run when it asks for more than `max` tool calls in total.",
      options: { max: z.number().int().nonnegative() },
    },
    deny_pattern: {
      description: "Halt the run when `pattern` matches the input, the output or tool arguments.",
      options: {
        ...regexOptions,
        on: z.array(z.enum(["input", "output", "tool_args"])).min(1).optional()
          .describe("Where to look; default all three"),
      },
    },
    allow_tools: {
      description: "Halt the run when the model asks for a tool not in `tools`.",
      options: { tools: z.array(z.string().min(1)) },
    },
  },
  validator: {
    non_empty: { description: "The final answer is not empty or blank.", options: {} },
    regex: { description: "The final answer matches `pattern`.", options: regexOptions },
    contains: {
      description: "The final answer contains `text`.",
      options: { text: z.string().min(1), ignore_case: z.boolean().optional() },
    },
    max_length: {
      description: "The final answer has at most `max` characters.",
      options: { max: z.number().int().positive() },
    },
    json: {
      description: "The final answer is JSON, optionally matching a JSON Schema in `schema`.",
      options: { schema: z.record(z.string(), z.unknown()).optional() },
    },
  },
  hook: {},
};

/**
 * The builtin names of one kind, in catalog order.
 *
 * @example
 * ```ts
 * builtinNames("validator"); // ["non_empty", "regex", "contains", "max_length", "json"]
 * ```
 * @param kind The entry kind.
 * @returns The names.
 */
export function builtinNames(kind: EntryKind): string[] {
  return Object.keys(BUILTINS[kind]);
}

/**
 * The whole catalog as plain data (names, descriptions, option names), for the workbench and copilot.
 *
 * @returns One row per builtin.
 */
export function builtinCatalog(): {
  kind: EntryKind;
  name: string;
  description: string;
  options: string[];
}[] {
  const rows: { kind: EntryKind; name: string; description: string; options: string[] }[] = [];
  for (const kind of Object.keys(BUILTINS) as EntryKind[]) {
    for (const [name, info] of Object.entries(BUILTINS[kind])) {
      rows.push({ kind, name, description: info.description, options: Object.keys(info.options) });
    }
  }
  return rows;
}
