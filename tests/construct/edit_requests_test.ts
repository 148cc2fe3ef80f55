import assert from "node:assert/strict";
import { removeRequest, setRequest } from "../../lib/construct/edit_requests.ts";
import { FrameworkError } from "../../lib/errors.ts";

const badInput = (pattern: RegExp) => (err: unknown) =>
  err instanceof FrameworkError && err.kind === "bad_input" && pattern.test(err.message);

Deno.test("setRequest() takes a path and a value (null too) and names what is missing", () => {
  assert.deepEqual(setRequest({ path: "limits.max_turns", value: 12 }), {
    path: "limits.max_turns",
    value: 12,
  });
  assert.deepEqual(setRequest({ path: "x", value: null }), { path: "x", value: null });
  assert.throws(() => setRequest({ value: 1 }), badInput(/^Missing "path"/));
  assert.throws(() => setRequest({ path: 3, value: 1 }), badInput(/^Missing "path"/));
  assert.throws(() => setRequest({ path: "x" }), badInput(/^Missing "value"/));
});

Deno.test("removeRequest() takes a path, or a kind and a name, and nothing else", () => {
  assert.deepEqual(removeRequest({ path: "skills.refunds" }), { path: "skills.refunds" });
  assert.deepEqual(removeRequest({ kind: "skill", name: "refunds" }), {
    kind: "skill",
    name: "refunds",
  });
  for (const body of [{}, { kind: "skill" }, { name: "x" }, { path: 1 }]) {
    assert.throws(() => removeRequest(body), badInput(/^Send \{"path"/), JSON.stringify(body));
  }
});
