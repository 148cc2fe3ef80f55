/**
 * compileJsonSchema: a `required` name is required at every level even when `properties` does not
 * name it (zod's import alone would accept an object without it), and the schema given is not changed.
 *
 * @module
 */

import assert from "node:assert/strict";
import { compileJsonSchema } from "../lib/json_schema.ts";

Deno.test("compileJsonSchema requires every required name, with or without a property for it", () => {
  const top = { type: "object", required: ["id"] };
  const check = compileJsonSchema(top);
  assert.equal(check({}).length, 1);
  assert.match(check({})[0]!, /^id: /);
  assert.deepEqual(check({ id: 1 }), []);
  assert.deepEqual(top, { type: "object", required: ["id"] }, "the schema given is unchanged");

  const nested = compileJsonSchema({
    type: "object",
    properties: {
      order: { type: "object", required: ["number"] },
      lines: { type: "array", items: { type: "object", required: ["sku"] } },
    },
    required: ["order"],
  });
  assert.deepEqual(nested({ order: { number: 7 }, lines: [{ sku: "a" }] }), []);
  assert.match(nested({ order: {} }).join("\n"), /^order\.number: /);
  assert.match(
    nested({ order: { number: 1 }, lines: [{ sku: "a" }, {}] }).join("\n"),
    /^lines\.1\.sku: /,
  );
  assert.match(nested({}).join("\n"), /^order: /);
});
