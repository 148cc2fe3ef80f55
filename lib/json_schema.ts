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
  const compiled = z.fromJSONSchema(
    requiredAsProperties(structuredClone(schema)) as Parameters<typeof z.fromJSONSchema>[0],
  );
  return (value) => {
    const r = compiled.safeParse(value);
    if (r.success) return [];
    return r.error.issues.map((i) => `${i.path.length ? `${i.path.join(".")}: ` : ""}${i.message}`);
  };
}

/** Keys whose values are data, not schemas: never walked. */
const DATA_KEYS = new Set(["const", "enum", "default", "examples", "example"]);

/**
 * Gives each name of a `required` list a property (`{}`, any value) when `properties` lacks it, at
 * every level of the schema: zod's import checks only the required names it has a property for, so
 * `{type: "object", required: ["id"]}` would otherwise accept `{}`.
 */
function requiredAsProperties(node: unknown): unknown {
  if (Array.isArray(node)) {
    node.forEach(requiredAsProperties);
    return node;
  }
  if (node === null || typeof node !== "object") return node;
  const o = node as Record<string, unknown>;
  if (Array.isArray(o.required)) {
    const properties = (o.properties && typeof o.properties === "object"
      ? o.properties
      : (o.properties = {})) as Record<string, unknown>;
    for (const name of o.required) {
      if (typeof name === "string" && !Object.hasOwn(properties, name)) {
        properties[name] = {};
      }
    }
  }
  for (const [k, v] of Object.entries(o)) if (!DATA_KEYS.has(k)) requiredAsProperties(v);
  return node;
}
