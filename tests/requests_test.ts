import assert from "node:assert/strict";
import { FrameworkError } from "../lib/errors.ts";
import {
  lastEventId,
  readRequest,
  REMOVE_REQUEST,
  RUN_REQUEST,
  SET_REQUEST,
  WORKBENCH_SET_REQUEST,
} from "../lib/requests.ts";

const badInput = (pattern: RegExp) => (err: unknown) =>
  err instanceof FrameworkError && err.kind === "bad_input" && pattern.test(err.message);

Deno.test("SET_REQUEST takes a path and a value (null too) and names what is missing", () => {
  assert.deepEqual(readRequest(SET_REQUEST, { path: "limits.max_turns", value: 12 }), {
    path: "limits.max_turns",
    value: 12,
  });
  assert.deepEqual(readRequest(SET_REQUEST, { path: "x", value: null }), {
    path: "x",
    value: null,
  });
  assert.throws(() => readRequest(SET_REQUEST, { value: 1 }), badInput(/missing "path"/));
  assert.throws(() => readRequest(SET_REQUEST, { path: 3, value: 1 }), badInput(/"path"/));
  assert.throws(() => readRequest(SET_REQUEST, { path: "x" }), badInput(/missing "value"/));
  // confirm_frozen is the workbench's: the control plane refuses it rather than ignore it.
  assert.throws(
    () => readRequest(SET_REQUEST, { path: "x", value: 1, confirm_frozen: true }),
    badInput(/unknown field "confirm_frozen"/),
  );
  assert.equal(
    readRequest(WORKBENCH_SET_REQUEST, { path: "x", value: 1, confirm_frozen: true })
      .confirm_frozen,
    true,
  );
});

Deno.test("REMOVE_REQUEST takes a path, or a kind and a name, and nothing else", () => {
  assert.deepEqual(readRequest(REMOVE_REQUEST, { path: "skills.refunds" }), {
    path: "skills.refunds",
  });
  assert.deepEqual(readRequest(REMOVE_REQUEST, { kind: "skill", name: "refunds" }), {
    kind: "skill",
    name: "refunds",
  });
  for (const body of [{}, { kind: "skill" }, { name: "x" }, { path: 1 }]) {
    assert.throws(
      () => readRequest(REMOVE_REQUEST, body),
      badInput(/send \{"path": "skills\.refunds"\}/),
      JSON.stringify(body),
    );
  }
});

Deno.test("RUN_REQUEST wants input or input_file, strings, and no other field", () => {
  assert.deepEqual(readRequest(RUN_REQUEST, { input: "hi" }), { input: "hi" });
  assert.throws(() => readRequest(RUN_REQUEST, {}), badInput(/missing input/));
  assert.throws(() => readRequest(RUN_REQUEST, { input: 5 }), badInput(/"input": expected string/));
  assert.throws(
    () => readRequest(RUN_REQUEST, { input: "x", extra: 1 }),
    badInput(/unknown field "extra"/),
  );
});

Deno.test("lastEventId() reads the header, then the query, trimmed; anything else is 0", () => {
  assert.equal(lastEventId(" 12 ", undefined), 12);
  assert.equal(lastEventId(undefined, "7"), 7);
  assert.equal(lastEventId("x", "7"), 0);
  assert.equal(lastEventId(undefined, undefined), 0);
});
