/**
 * The JSON Schema of `harness.yaml`, generated from the zod schema, for editors (`framework schema`).
 *
 * @module
 */

import * as z from "zod";
import { harnessSchema } from "./schema.ts";

/**
 * The JSON Schema (draft 2020-12) of `harness.yaml`.
 *
 * @example
 * ```ts
 * harnessJsonSchema().properties; // { id: ..., model: ..., ... }
 * ```
 * @returns The schema as a plain object.
 */
export function harnessJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(harnessSchema, { unrepresentable: "any", io: "input" }) as Record<
    string,
    unknown
  >;
  return {
    ...schema,
    $id: "https://framework.dev/schemas/harness.json",
    title: "harness.yaml",
    description: "A harness: model, instructions, tools, guardrails, validators, skills and more.",
  };
}
