/**
 * Checking values against JSON Schemas (tool arguments, the `json` validator), through zod's JSON
 * Schema import, so there is one validation engine in the framework.
 *
 * @module
 */

import * as z from "zod";

/** A compiled check: the list of problems (empty when the value conforms). */
export type SchemaCheck = (value: unknown) => string[];

/**
 * Compiles a JSON Schema into a check.
 *
 * @example
 * ```ts
 * const check = compileJsonSchema({
 *   type: "object",
 *   properties: { id: { type: "string" } },
 *   required: ["id"],
 * });
 * check({}); // ["id: Invalid input: expected string, received undefined"] (wording from zod)
 * ```
 * @param schema A JSON Schema (draft 2020-12 subset that zod understands).
 * @returns The check.
 * @throws Error when the schema cannot be compiled.
 */
export function compileJsonSchema(schema: Record<string, unknown>): SchemaCheck {
  const compiled = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
  return (value) => {
    const r = compiled.safeParse(value);
    if (r.success) return [];
    return r.error.issues.map((i) => `${i.path.length ? `${i.path.join(".")}: ` : ""}${i.message}`);
  };
}
