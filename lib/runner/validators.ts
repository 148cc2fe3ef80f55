/**
 * Validators (`verify.validators`): checks of a run's final answer. All of them run; any failure gives
 * `verify_failed`. Builtins `non_empty`, `regex`, `contains`, `max_length`, `json` (with an optional
 * JSON Schema), and code validators in the sandbox. A validator that fails to run counts as failed.
 *
 * @module
 */

import { compileJsonSchema } from "../json_schema.ts";
import { entryName } from "../harness_spec/entries.ts";
import type { HarnessSpec } from "../harness_spec/schema.ts";
import type { Grant, SandboxPool } from "../tools/sandbox.ts";

/** The outcome of one validator. */
export interface Verdict {
  ok: boolean;
  reason?: string;
}

/** One validator. */
export interface Validator {
  name: string;
  /** Its builtin name, or `code`. */
  kind: string;
  validate(output: string): Promise<Verdict>;
}

type Entry = Record<string, unknown>;

/** Parses JSON, also inside a single Markdown code fence (models often wrap JSON in one). */
function parseJsonAnswer(
  output: string,
): { ok: true; value: unknown } | { ok: false; reason: string } {
  const trimmed = output.trim();
  const fenced = /^```(?:json)?\s*\n([\s\S]*?)\n```$/i.exec(trimmed);
  try {
    return { ok: true, value: JSON.parse(fenced ? fenced[1]! : trimmed) };
  } catch (err) {
    return { ok: false, reason: `The answer is not JSON: ${(err as Error).message}` };
  }
}

function builtin(entry: Entry): (output: string) => Verdict {
  switch (entry.builtin) {
    case "non_empty":
      return (o) => (o.trim() ? { ok: true } : { ok: false, reason: "The answer is empty" });
    case "regex": {
      const re = new RegExp(
        entry.pattern as string,
        ((entry.flags as string | undefined) ?? "").replace(/[gy]/g, ""),
      );
      return (
        o,
      ) => (re.test(o)
        ? { ok: true }
        : { ok: false, reason: `The answer does not match /${re.source}/` });
    }
    case "contains": {
      const text = entry.text as string;
      const ignoreCase = entry.ignore_case === true;
      return (o) =>
        (ignoreCase ? o.toLowerCase().includes(text.toLowerCase()) : o.includes(text))
          ? { ok: true }
          : { ok: false, reason: `The answer does not contain ${JSON.stringify(text)}` };
    }
    case "max_length": {
      const max = entry.max as number;
      return (
        o,
      ) => (o.length <= max
        ? { ok: true }
        : { ok: false, reason: `The answer has ${o.length} characters, over ${max}` });
    }
    case "json": {
      const check = entry.schema
        ? compileJsonSchema(entry.schema as Record<string, unknown>)
        : undefined;
      return (o) => {
        const parsed = parseJsonAnswer(o);
        if (!parsed.ok) return parsed;
        const problems = check?.(parsed.value) ?? [];
        return problems.length
          ? {
            ok: false,
            reason: `The JSON does not match the schema: ${problems.slice(0, 5).join("; ")}`,
          }
          : { ok: true };
      };
    }
  }
  return () => ({
    ok: false,
    reason: `Unknown builtin validator ${JSON.stringify(entry.builtin)}`,
  });
}

/** Interprets what a code validator returned. */
function codeVerdict(value: unknown): Verdict {
  if (value === true) return { ok: true };
  if (value === false || value === null || value === undefined) {
    return { ok: false, reason: "The validator returned false" };
  }
  if (typeof value === "string") return { ok: false, reason: value };
  if (typeof value === "object") {
    const v = value as { ok?: unknown; reason?: unknown };
    return v.ok
      ? { ok: true }
      : { ok: false, reason: typeof v.reason === "string" ? v.reason : "The validator failed" };
  }
  return { ok: false, reason: `The validator returned ${JSON.stringify(value)}` };
}

/**
 * Builds the validators of a spec.
 *
 * @param spec The spec snapshot.
 * @param sandboxes Where code validators run.
 * @param defaultTimeoutS Time limit of code validators without `timeout_s`.
 * @returns The validators in spec order.
 */
export function buildValidators(
  spec: HarnessSpec,
  sandboxes: SandboxPool,
  defaultTimeoutS: number,
): Validator[] {
  return (spec.verify?.validators ?? []).map((raw) => {
    const entry = raw as Entry;
    const name = entryName(entry)!;
    if (typeof entry.builtin === "string") {
      const fn = builtin(entry);
      return { name, kind: entry.builtin, validate: (o: string) => Promise.resolve(fn(o)) };
    }
    const ref = entry.code as string;
    const timeoutMs = ((entry.timeout_s as number | undefined) ?? defaultTimeoutS) * 1000;
    const box = sandboxes.for(entry.permissions as Grant | undefined);
    return {
      name,
      kind: "code",
      async validate(output: string) {
        try {
          return codeVerdict((await box.call(ref, output, { validator: name }, timeoutMs)).value);
        } catch (err) {
          return { ok: false, reason: `The validator could not run: ${(err as Error).message}` };
        }
      },
    };
  });
}
