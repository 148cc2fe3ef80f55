/**
 * Eval sets: `<harness>/evals/<set>.yaml`, a fixed list of cases every version of a harness can be
 * measured on (docs/evaluations.md, Eval sets). A case has an input (or an `input_file` of
 * the harness), the status its run should end with (default `success`) and `expect` checks written
 * like `verify.validators` entries: builtins or code validators.
 *
 * @module
 */

import { LineCounter, parseDocument } from "yaml";
import * as z from "zod";
import { RUN_STATUSES } from "../run_types.ts";
import { positionOf, type SpecIssue, toSpecIssues } from "./issues.ts";
import { entrySchema } from "./schema.ts";

/**
 * Why an eval check cannot carry `permissions`: eval code is harness code, and its grants come from
 * `harness.yaml` alone.
 */
export const EVAL_GRANTS_REFUSED =
  "An eval set cannot grant permissions: a code check runs in the harness's sandbox with what harness.yaml's verify.validators grants the same code ref, and nothing more. Remove `permissions` here (and grant it in harness.yaml if the check needs it)";

/** The schema of one case of an eval set. */
export const evalCaseSchema = z.strictObject({
  id: z.string().regex(
    /^[A-Za-z0-9][A-Za-z0-9_.-]*$/,
    "expected a case id of letters, digits, '_', '-' and '.'",
  ),
  description: z.string().optional(),
  input: z.string().optional().describe("The run's input, literal text"),
  input_file: z.string().optional().describe("A file inside the harness folder as the input"),
  status: z.enum(RUN_STATUSES).optional().describe("The status the run should end with"),
  expect: z.array(entrySchema("validator", { grantsRefused: EVAL_GRANTS_REFUSED })).optional()
    .describe(
      "Checks of the output: validator builtins or code validators (run with the permissions harness.yaml's verify.validators gives the same code ref, never with their own)",
    ),
});

/** The schema of an eval set file. */
export const evalSetSchema = z.strictObject({
  description: z.string().optional(),
  cases: z.array(evalCaseSchema).min(1, "An eval set needs at least one case"),
}).superRefine((set, ctx) => {
  const seen = new Set<string>();
  set.cases.forEach((c, i) => {
    if (seen.has(c.id)) {
      ctx.addIssue({
        code: "custom",
        path: ["cases", i, "id"],
        message: `Duplicate case id ${c.id}`,
      });
    }
    seen.add(c.id);
    if (c.input === undefined && c.input_file === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["cases", i],
        message: "A case needs `input` (text) or `input_file` (a path in the harness)",
      });
    }
  });
});

/** An eval set. */
export type EvalSet = z.infer<typeof evalSetSchema>;
/** One case of an eval set. */
export type EvalCase = EvalSet["cases"][number];

/** The folder of a harness's eval sets, relative to it. */
export const EVALS_DIR = "evals";

/** The file name rule of a set: `<name>.yaml` with a slug-like name. */
export const EVAL_SET_NAME = /^[a-z0-9][a-z0-9_-]*$/;

/**
 * Parses an eval set's text: its issues (with lines and columns) and, when valid, the set.
 *
 * @example
 * ```ts
 * parseEvalSetText("cases:\n  - id: hi\n    input: Hello\n").set?.cases.length; // 1
 * ```
 * @param text The YAML text.
 * @returns The issues and the set.
 */
export function parseEvalSetText(text: string): { issues: SpecIssue[]; set?: EvalSet } {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length) {
    return {
      issues: doc.errors.map((e) => {
        const pos = lineCounter.linePos(e.pos[0]);
        return {
          path: "",
          severity: "error" as const,
          message: `Invalid YAML: ${e.message.split("\n")[0]}`,
          line: pos.line,
          column: pos.col,
        };
      }),
    };
  }
  const value = doc.toJS({ maxAliasCount: 100 });
  const result = evalSetSchema.safeParse(value);
  if (result.success) return { issues: [], set: result.data };
  if (!value || typeof value !== "object") {
    return {
      issues: [{
        path: "",
        severity: "error",
        message: "An eval set must be a map with `cases`",
        ...positionOf(doc, lineCounter, []),
      }],
    };
  }
  return { issues: toSpecIssues(result.error.issues, evalSetSchema, value, doc, lineCounter) };
}

/**
 * The JSON Schema of an eval set file (`framework schema --eval`).
 *
 * @returns The schema.
 */
export function evalSetJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(evalSetSchema, { unrepresentable: "any", io: "input" }) as Record<
      string,
      unknown
    >,
    $id: "https://framework.dev/schemas/eval-set.json",
    title: "evals/<set>.yaml",
    description: "A fixed set of cases a harness is measured on, version after version.",
  };
}
