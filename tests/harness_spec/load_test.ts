import assert from "node:assert/strict";
import { parseSpecText } from "../../lib/harness_spec/load.ts";
import { harnessJsonSchema } from "../../lib/harness_spec/json_schema.ts";
import { specVersion } from "../../lib/harness_spec/version.ts";
import { BUILTINS, type EntryKind } from "../../lib/harness_spec/builtins.ts";

const BROKEN = `id: Bad_Id
model:
  provider: scriptd
  nme: x
limits:
  max_turnz: 5
  timeout_s: "12"
tools:
  - builtin: file_raed
  - code: tools/x.ts
  - name: orphan
skills:
  - name: a
    description: d
    instructions: i
  - name: a
    description: d
    instructions: i
extra_root: 1
`;

Deno.test("parseSpecText() lists every problem with its path, line and column", () => {
  const { issues, spec } = parseSpecText(BROKEN);
  assert.equal(spec, undefined);
  const byPath = Object.fromEntries(issues.map((i) => [i.path, i]));
  const expected: [string, number, RegExp][] = [
    ["id", 1, /slug/],
    ["model.provider", 3, /did you mean "scripted"/],
    ["model.nme", 4, /Unknown key "nme" \(did you mean "name"\?\)/],
    ["limits.max_turnz", 6, /did you mean "max_turns"/],
    ["limits.timeout_s", 7, /Expected a number, got "12"/],
    ["tools.0.builtin", 9, /Unknown builtin "file_raed" \(did you mean "file_read"\?\)/],
    ["tools.1.code", 10, /path\/module.ts#exportName/],
    ["tools.2", 11, /needs `builtin: NAME` or `code:/],
    ["skills.1", 16, /Duplicate skill name "a"/],
    ["extra_root", 19, /Unknown key "extra_root"/],
  ];
  for (const [path, line, message] of expected) {
    const issue = byPath[path];
    assert.ok(issue, `an issue at ${path}; got ${issues.map((i) => i.path).join(", ")}`);
    assert.equal(issue.line, line, `line of ${path}`);
    assert.ok(typeof issue.column === "number" && issue.column >= 1, `column of ${path}`);
    assert.match(issue.message, message);
    assert.equal(issue.severity, "error");
  }
  assert.equal(issues.length, expected.length);
  const lines = issues.map((i) => i.line!);
  assert.deepEqual(lines, [...lines].sort((a, b) => a - b), "issues are in document order");
});

Deno.test("parseSpecText() reports YAML syntax errors with a position", () => {
  const { issues } = parseSpecText("id: a\nmodel: [\n");
  assert.equal(issues.length >= 1, true);
  assert.match(issues[0]!.message, /^Invalid YAML/);
  assert.ok(issues[0]!.line! >= 2);
});

Deno.test("parseSpecText() refuses an empty file and a non-map document", () => {
  for (const text of ["", "# nothing\n", "- a\n", "just a string\n"]) {
    const { issues } = parseSpecText(text);
    assert.equal(issues.length, 1, JSON.stringify(text));
    assert.match(issues[0]!.message, /must be a map/);
  }
});

Deno.test("parseSpecText() refuses duplicate keys", () => {
  const { issues } = parseSpecText("id: a\nid: b\nmodel: {provider: scripted, replies: []}\n");
  assert.match(issues[0]!.message, /Invalid YAML.*[Dd]uplicate|unique/);
});

Deno.test("parseSpecText() checks model rules per provider", async (t) => {
  const check = (model: string) =>
    parseSpecText(`id: a\nmodel: ${model}\n`).issues.map((i) => `${i.path}: ${i.message}`);
  await t.step("scripted needs replies", () => {
    assert.match(
      check("{provider: scripted}").join("\n"),
      /model.replies: The scripted provider needs/,
    );
  });
  await t.step("openai needs a name", () => {
    assert.match(
      check("{provider: openai}").join("\n"),
      /model.name: The openai provider needs a model name/,
    );
  });
  await t.step("openai-compatible needs a base_url", () => {
    assert.match(check("{provider: openai-compatible, name: x}").join("\n"), /model.base_url/);
  });
  await t.step("replies only for scripted", () => {
    assert.match(
      check("{provider: anthropic, name: x, replies: []}").join("\n"),
      /only used by the scripted/,
    );
  });
  await t.step("bad regular expressions", () => {
    const issues = parseSpecText(
      "id: a\nmodel: {provider: scripted, replies: []}\nguardrails:\n  - builtin: deny_pattern\n    pattern: '(x'\n",
    ).issues;
    assert.equal(issues[0]!.path, "guardrails.0.pattern");
    assert.match(issues[0]!.message, /Invalid regular expression/);
  });
});

Deno.test("parseSpecText() accepts every builtin with its options", () => {
  const samples: Record<EntryKind, Record<string, Record<string, unknown>>> = {
    tool: {
      file_read: {},
      file_write: { max_bytes: 10 },
      list_files: {},
      load_skill: {},
      switch_playbook: {},
      delegate: {},
    },
    guardrail: {
      max_cost: { usd: 1 },
      max_tool_calls: { max: 3 },
      deny_pattern: { pattern: "x", flags: "i", on: ["input"] },
      allow_tools: { tools: ["file_read"] },
    },
    validator: {
      non_empty: {},
      regex: { pattern: "a" },
      contains: { text: "a" },
      max_length: { max: 5 },
      json: { schema: { type: "object" } },
    },
    hook: {},
  };
  for (const kind of Object.keys(BUILTINS) as EntryKind[]) {
    assert.deepEqual(
      Object.keys(samples[kind]).sort(),
      Object.keys(BUILTINS[kind]).sort(),
      `samples for ${kind}`,
    );
  }
  const spec = {
    id: "all-builtins",
    model: { provider: "scripted", replies: [{ text: "hi" }] },
    tools: Object.entries(samples.tool).map(([builtin, o]) => ({ builtin, ...o })),
    guardrails: Object.entries(samples.guardrail).map(([builtin, o]) => ({ builtin, ...o })),
    verify: {
      validators: Object.entries(samples.validator).map(([builtin, o]) => ({ builtin, ...o })),
    },
    hooks: [{ code: "hooks/h.ts#h", on: "run_end" }],
  };
  const parsed = parseSpecText(JSON.stringify(spec));
  assert.deepEqual(parsed.issues.filter((i) => i.severity === "error"), []);
  assert.ok(parsed.spec);
});

Deno.test("parseSpecText() warns about tools named but not provided", () => {
  const parsed = parseSpecText(
    "id: a\nmodel: {provider: scripted, replies: []}\nguardrails:\n  - builtin: allow_tools\n    tools: [file_read]\n",
  );
  assert.ok(parsed.spec, "a warning does not make the spec invalid");
  assert.equal(parsed.issues[0]!.severity, "warning");
  assert.equal(parsed.issues[0]!.path, "guardrails.0.tools.0");
  assert.equal(parsed.issues[0]!.line, 5);
});

Deno.test("specVersion() ignores comments, key order and formatting", () => {
  const a = parseSpecText("id: a  # c\nmodel: {provider: scripted, replies: []}\n").value;
  const b = parseSpecText("model:\n  replies: []\n  provider: scripted\nid: 'a'\n").value;
  assert.equal(specVersion(a), specVersion(b));
  assert.match(specVersion(a), /^[0-9a-f]{64}$/);
  const c = parseSpecText("id: b\nmodel: {provider: scripted, replies: []}\n").value;
  assert.notEqual(specVersion(a), specVersion(c));
});

Deno.test("harnessJsonSchema() describes every root and the builtin variants", () => {
  const schema = harnessJsonSchema() as {
    properties: Record<string, unknown>;
    additionalProperties: unknown;
  };
  for (
    const root of [
      "id",
      "name",
      "model",
      "limits",
      "tools",
      "guardrails",
      "verify",
      "skills",
      "hooks",
      "extensions",
      "mcp_servers",
      "logging",
      "evolution",
      "playbooks",
      "delegation",
    ]
  ) {
    assert.ok(root in schema.properties, root);
  }
  assert.equal(schema.additionalProperties, false);
  const text = JSON.stringify(schema);
  for (const name of ["file_read", "deny_pattern", "max_length", "allow_tools"]) {
    assert.ok(text.includes(`"${name}"`), name);
  }
});
