import assert from "node:assert/strict";
import { parseDottedPath, resolvePath } from "../../lib/harness_spec/dotted_path.ts";
import { FrameworkError } from "../../lib/errors.ts";

const SPEC = {
  id: "a",
  model: { provider: "scripted", replies: [] },
  limits: { max_turns: 3 },
  tools: [{ builtin: "file_read" }, { code: "tools/lookup.ts#lookup" }, {
    builtin: "file_write",
    name: "writer",
  }],
  guardrails: [{ builtin: "deny_pattern", pattern: "a" }, {
    builtin: "deny_pattern",
    pattern: "b",
  }],
  skills: [{ name: "refunds", description: "d", instructions: "i" }],
  extensions: { mine: { deep: 1 } },
};

function badInputMatching(re: RegExp) {
  return (err: unknown) =>
    err instanceof FrameworkError && err.kind === "bad_input" && re.test(err.message);
}

Deno.test("parseDottedPath() splits and refuses empty segments", () => {
  assert.deepEqual(parseDottedPath("limits.max_turns"), ["limits", "max_turns"]);
  for (const bad of ["", "a..b", ".a", "a.", " a"]) {
    assert.throws(() => parseDottedPath(bad), badInputMatching(/path/i), JSON.stringify(bad));
  }
});

Deno.test("resolvePath() finds list entries by name, builtin, code-ref export and index", () => {
  assert.deepEqual(resolvePath(SPEC, "skills.refunds.instructions").path, [
    "skills",
    0,
    "instructions",
  ]);
  assert.deepEqual(resolvePath(SPEC, "tools.file_read").path, ["tools", 0]);
  assert.deepEqual(resolvePath(SPEC, "tools.lookup").path, ["tools", 1]);
  assert.deepEqual(resolvePath(SPEC, "tools.writer").path, ["tools", 2]);
  assert.deepEqual(
    resolvePath(SPEC, "tools.file_write").path,
    ["tools", 2],
    "by builtin when named otherwise",
  );
  assert.deepEqual(resolvePath(SPEC, "tools.1").path, ["tools", 1]);
  assert.equal(resolvePath(SPEC, "limits.max_turns").value, 3);
});

Deno.test("resolvePath() reports missing known fields as not existing", () => {
  const r = resolvePath(SPEC, "limits.timeout_s");
  assert.equal(r.exists, false);
  assert.deepEqual(r.path, ["limits", "timeout_s"]);
  assert.equal(resolvePath(SPEC, "logging.redact.fields").exists, false);
  assert.equal(resolvePath(SPEC, "extensions.mine.deep").value, 1, "free-form maps");
  assert.equal(resolvePath(SPEC, "extensions.other.x").exists, false);
});

Deno.test("resolvePath() refuses unknown, ambiguous and impossible paths clearly", async (t) => {
  await t.step("unknown field with a hint", () => {
    assert.throws(
      () => resolvePath(SPEC, "limits.max_turnz"),
      badInputMatching(/did you mean "limits.max_turns"/),
    );
    assert.throws(() => resolvePath(SPEC, "modle"), badInputMatching(/did you mean "model"/));
  });
  await t.step("unknown entry name with a hint", () => {
    assert.throws(
      () => resolvePath(SPEC, "skills.refund"),
      badInputMatching(/did you mean "refunds"/),
    );
  });
  await t.step("index out of range", () => {
    assert.throws(() => resolvePath(SPEC, "tools.9"), badInputMatching(/has 3 entries/));
  });
  await t.step("ambiguous name", () => {
    assert.throws(
      () => resolvePath(SPEC, "guardrails.deny_pattern"),
      badInputMatching(/Ambiguous.*guardrails\.0/),
    );
  });
  await t.step("descending into a scalar", () => {
    assert.throws(() => resolvePath(SPEC, "id.x"), badInputMatching(/not a map or list/));
  });
});

Deno.test("resolvePath() never takes a name that looks like an index for one", async (t) => {
  const spec = {
    ...SPEC,
    skills: [
      { name: "refunds", description: "d", instructions: "i" },
      { name: "0", description: "d", instructions: "i" },
      { name: "v1.2", description: "d", instructions: "i" },
    ],
  };
  await t.step("a named entry wins over an index", () => {
    assert.deepEqual(resolvePath(spec, "skills.0").path, ["skills", 1]);
  });
  await t.step("an index still works where no entry has that name", () => {
    assert.deepEqual(resolvePath(spec, "skills.2").path, ["skills", 2]);
  });
  await t.step("a name with dots is one entry", () => {
    assert.deepEqual(resolvePath(spec, "skills.v1.2").path, ["skills", 2]);
    assert.deepEqual(resolvePath(spec, "skills.v1.2.description").path, [
      "skills",
      2,
      "description",
    ]);
  });
  await t.step("lastByName reads names only", () => {
    assert.deepEqual(resolvePath(spec, "skills.0", { lastByName: true }).path, ["skills", 1]);
    assert.throws(
      () => resolvePath(SPEC, "skills.0", { lastByName: true }),
      (err: FrameworkError) => err.kind === "bad_input" && /No entry named "0"/.test(err.message),
    );
  });
});
