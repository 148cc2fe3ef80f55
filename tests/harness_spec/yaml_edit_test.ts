import assert from "node:assert/strict";
import { isDeepStrictEqual } from "node:util";
import { isMap, isScalar, LineCounter, type Node, parseDocument } from "yaml";
import { appendInText, deleteInText, setInText } from "../../lib/harness_spec/yaml_edit.ts";

const RICH = await Deno.readTextFile(new URL("../fixtures/rich_harness.yaml", import.meta.url));

type Path = (string | number)[];

/** Every path that holds a scalar, with its value. */
function leaves(value: unknown, path: Path = []): [Path, unknown][] {
  if (Array.isArray(value)) return value.flatMap((v, i) => leaves(v, [...path, i]));
  if (value && typeof value === "object") {
    return Object.entries(value).flatMap(([k, v]) => leaves(v, [...path, k]));
  }
  return [[path, value]];
}

/** Lines of `text` (1-based) from the key (or dash) line of `path` to the end of its value. */
function lineSpan(text: string, path: Path): [number, number] {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc });
  const node = doc.getIn(path, true) as Node;
  const parent = doc.getIn(path.slice(0, -1), true);
  let startOffset = node.range![0];
  if (isMap(parent)) {
    const pair = parent.items.find((p) => isScalar(p.key) && p.key.value === path.at(-1));
    startOffset = (pair!.key as Node).range![0];
  }
  let endOffset = node.range![1];
  if (text[endOffset - 1] === "\n") endOffset--;
  return [lc.linePos(startOffset).line, lc.linePos(endOffset).line];
}

/** Asserts that `after` differs from `before` only inside lines [from, to] of `before`. */
function assertOnlyLinesChanged(before: string, after: string, from: number, to: number): void {
  const a = before.split("\n");
  const b = after.split("\n");
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  while (
    suffix < a.length - prefix && suffix < b.length - prefix &&
    a[a.length - 1 - suffix] === b[b.length - 1 - suffix]
  ) suffix++;
  const changedFrom = prefix + 1;
  const changedTo = a.length - suffix;
  assert.ok(
    changedFrom >= from && changedTo <= to,
    `expected changes only in lines ${from}-${to}, got ${changedFrom}-${changedTo}:\n${after}`,
  );
}

function parse(text: string): unknown {
  const doc = parseDocument(text);
  assert.deepEqual(doc.errors, []);
  return doc.toJS();
}

function otherValue(v: unknown): unknown {
  if (typeof v === "number") return v + 7;
  if (typeof v === "boolean") return !v;
  if (typeof v === "string") {
    return v.includes("\n") ? "Replaced text.\nSecond line.\n" : `${v} (edited)`;
  }
  return "now set";
}

Deno.test("setInText() changes one scalar and keeps every other byte of a commented file", () => {
  const value = parse(RICH);
  const all = leaves(value);
  assert.ok(all.length > 25, "the fixture has many leaves");
  for (const [path, old] of all) {
    const next = otherValue(old);
    const out = setInText(RICH, path, next);
    const expected = structuredClone(value) as Record<string | number, unknown>;
    let cursor = expected;
    for (const key of path.slice(0, -1)) cursor = cursor[key] as Record<string | number, unknown>;
    cursor[path.at(-1)!] = next;
    assert.ok(isDeepStrictEqual(parse(out), expected), `value after setting ${path.join(".")}`);
    const [from, to] = lineSpan(RICH, path);
    assertOnlyLinesChanged(RICH, out, from, to);
  }
});

Deno.test("setInText() keeps the quoting style of a string it replaces", async (t) => {
  await t.step("single quotes", () => {
    assert.ok(
      setInText(RICH, ["name"], "Helpdesk").includes(
        "\nname: 'Helpdesk'          # single-quoted on purpose\n",
      ),
    );
  });
  await t.step("double quotes", () => {
    assert.ok(
      setInText(RICH, ["description"], "New").includes('\ndescription: "New"   # double-quoted\n'),
    );
  });
  await t.step("folded block stays folded", () => {
    const out = setInText(RICH, ["skills", 0, "instructions"], "Ask first.\n");
    assert.ok(out.includes("instructions: >\n      Ask first.\n  - name: shipping"), out);
  });
  await t.step("a multi-line value in a plain scalar becomes a literal block", () => {
    const out = setInText(RICH, ["skills", 1, "instructions"], "one\ntwo");
    assert.ok(out.includes("instructions: |-\n      one\n      two\n"), out);
    assert.equal(
      (parse(out) as { skills: { instructions: string }[] }).skills[1]!.instructions,
      "one\ntwo",
    );
  });
});

Deno.test("setInText() writes typed values", async (t) => {
  await t.step("a number stays a number", () => {
    const out = setInText(RICH, ["limits", "max_turns"], 12);
    assert.ok(out.split("\n").includes("  max_turns: 12        # turns"), out);
  });
  await t.step("a numeric string is quoted", () => {
    const out = setInText(RICH, ["limits", "max_turns"], "12");
    assert.equal((parse(out) as { limits: { max_turns: unknown } }).limits.max_turns, "12");
  });
  await t.step("strings that look like YAML keywords stay strings", () => {
    for (
      const s of ["true", "null", "yes", "~", "- x", "a: b", "#x", "  padded", "", "😀 ünïcode"]
    ) {
      const out = setInText(RICH, ["description"], s);
      assert.equal((parse(out) as { description: unknown }).description, s, JSON.stringify(s));
    }
  });
  await t.step("null, booleans, lists and maps", () => {
    for (const v of [null, false, [], {}, [1, "two", { three: 3 }], { a: { b: [1, 2] } }]) {
      const out = setInText(RICH, ["extensions"], v);
      assert.deepEqual((parse(out) as { extensions: unknown }).extensions, v);
    }
  });
  await t.step("a value with leading spaces on its first line", () => {
    const s = "  indented\nnot\n\n";
    const out = setInText(RICH, ["instructions"], s);
    assert.equal((parse(out) as { instructions: string }).instructions, s);
  });
});

Deno.test("setInText() adds missing keys without touching other lines", async (t) => {
  await t.step("a new key in a block map", () => {
    const out = setInText(RICH, ["limits", "tool_timeout_s"], 30);
    const [, end] = lineSpan(RICH, ["limits", "timeout_s"]);
    assertOnlyLinesChanged(RICH, out, end + 1, end);
    assert.ok(out.includes("  timeout_s: 120\n  tool_timeout_s: 30\n"), out);
  });
  await t.step("a new key in a four-space block keeps the four spaces", () => {
    const out = setInText(RICH, ["model", "base_url"], "http://127.0.0.1:1/v1");
    assert.ok(out.includes("\n    base_url: http://127.0.0.1:1/v1\n"), out);
  });
  await t.step("a new key in a flow map stays in the flow map", () => {
    const out = setInText(RICH, ["model", "replies", 0, "usage", "cached"], 1);
    assert.match(out, /usage: \{input_tokens: 100, output_tokens: 20, cached: 1\}/);
  });
  await t.step("missing parents are created", () => {
    const out = setInText(RICH, ["delegation", "max_depth"], 2);
    assert.ok(out.endsWith("\ndelegation:\n  max_depth: 2\n# final comment\n"), out);
    assert.ok(out.startsWith(RICH.slice(0, RICH.indexOf("# final comment"))));
  });
  await t.step("an empty document gets its first key", () => {
    assert.equal(setInText("", ["id"], "x"), "id: x\n");
    assert.equal(setInText("# only a comment\n", ["id"], "x"), "# only a comment\nid: x\n");
  });
  await t.step("a key with a null value gets a map", () => {
    const out = setInText("a: 1\nlimits:   # later\nb: 2\n", ["limits", "max_turns"], 3);
    assert.equal(out, "a: 1\nlimits:   # later\n  max_turns: 3\nb: 2\n");
  });
});

Deno.test("deleteInText() removes exactly the lines of the value", async (t) => {
  await t.step("a scalar pair", () => {
    const out = deleteInText(RICH, ["limits", "max_cost_usd"]);
    assert.equal(out, RICH.replace("  max_cost_usd: 0.50  # dollars\n", ""));
  });
  await t.step("a list item in a non-indented sequence", () => {
    const out = deleteInText(RICH, ["tools", 1]);
    assert.equal(
      out,
      RICH.replace(
        "- code: tools/lookup.ts#lookup\n  description: Look up an order   # trailing\n",
        "",
      ),
    );
  });
  await t.step("a skill with a folded block", () => {
    const out = deleteInText(RICH, ["skills", 0]);
    assert.ok(!out.includes("refunds"));
    assert.ok(out.includes("  - name: shipping   # second skill\n"));
    assert.deepEqual((parse(out) as { skills: unknown[] }).skills.length, 1);
  });
  await t.step("the first key of a list item pulls the next key onto the dash line", () => {
    const out = deleteInText(RICH, ["skills", 1, "name"]);
    assert.ok(
      out.includes("  - description: Shipping questions\n    instructions: Check the carrier.\n"),
      out,
    );
  });
  await t.step("a whole block section", () => {
    const out = deleteInText(RICH, ["guardrails"]);
    assert.equal(
      out,
      RICH.replace(
        "guardrails:\n  - builtin: deny_pattern\n    pattern: password\n    flags: i\n",
        "",
      ),
    );
  });
  await t.step("the last entry leaves an empty collection", () => {
    const out = deleteInText(RICH, ["evolution", "objectives", 0]);
    assert.deepEqual(
      (parse(out) as { evolution: { objectives: unknown } }).evolution.objectives,
      [],
    );
  });
  await t.step("an entry of a flow list", () => {
    const out = deleteInText(RICH, ["logging", "redact", "fields", 0]);
    assert.deepEqual(
      (parse(out) as { logging: { redact: { fields: unknown } } }).logging.redact.fields,
      [],
    );
  });
});

Deno.test("appendInText() adds list items in the list's own style", async (t) => {
  await t.step("a block list", () => {
    const out = appendInText(RICH, ["skills"], {
      name: "c",
      description: "C",
      instructions: "One.\nTwo.\n",
    });
    assert.ok(
      out.includes(
        "    instructions: Check the carrier.\n  - name: c\n    description: C\n    instructions: |\n      One.\n      Two.\n\nlogging:",
      ),
      out,
    );
  });
  await t.step("a non-indented block list", () => {
    const out = appendInText(RICH, ["tools"], { builtin: "list_files" });
    assert.ok(
      out.includes(
        "  description: Look up an order   # trailing\n- builtin: list_files\n\nguardrails:",
      ),
      out,
    );
  });
  await t.step("a flow list", () => {
    const out = appendInText(RICH, ["logging", "redact", "fields"], "password");
    assert.match(out, /fields: \[api_key, password\]/);
  });
  await t.step("a missing list is created", () => {
    const out = appendInText(RICH, ["hooks"], { code: "hooks/log.ts#log", on: "run_end" });
    assert.deepEqual((parse(out) as { hooks: unknown }).hooks, [{
      code: "hooks/log.ts#log",
      on: "run_end",
    }]);
    assert.ok(out.startsWith(RICH.slice(0, RICH.indexOf("# final comment"))));
  });
  await t.step("an empty flow list becomes a block list", () => {
    const out = appendInText("skills: []\n", ["skills"], { name: "a" });
    assert.equal(out, "skills:\n  - name: a\n");
  });
});

Deno.test("yaml edits keep CRLF line endings", () => {
  const crlf = "a: 1\r\nb:\r\n  c: 2\r\n";
  assert.equal(setInText(crlf, ["b", "d"], 3), "a: 1\r\nb:\r\n  c: 2\r\n  d: 3\r\n");
  assert.equal(deleteInText(crlf, ["a"]), "b:\r\n  c: 2\r\n");
});

Deno.test("yaml edits refuse text that does not parse", () => {
  assert.throws(() => setInText("a: [\n", ["a"], 1), /does not parse/);
});
