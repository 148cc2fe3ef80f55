/**
 * End-to-end tests of the `framework` CLI verbs over `harness.yaml` and the trust store, run as real
 * subprocesses: init, validate, get, set, add, remove, trust, schema, --version, --help and usage
 * errors, each with and without `--json` (docs/http-contract.md: the ok wrapper and the exit codes).
 *
 * Every test has its own FRAMEWORK_HOME and its own harness folders under temporary directories.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { type CliResult, runCli } from "../helpers/cli.ts";
import { humanError, humanOk, type Json, jsonError, jsonOk } from "../helpers/cli_assert.ts";
import { tempDir, writeFiles } from "../helpers/temp.ts";

/** Runs the CLI with a home. */
function cli(args: string[], home: string, cwd?: string): Promise<CliResult> {
  return runCli(args, cwd === undefined ? { home } : { home, cwd });
}

/** One parsed construction-log line. */
interface LogEntry {
  ts: string;
  actor: string;
  op: string;
  path: string;
  old: unknown;
  new: unknown;
}

/** Reads `<harness>/.framework/construction.log`, checking that every line is a full JSON entry. */
async function readLog(dir: string): Promise<LogEntry[]> {
  let text: string;
  try {
    text = await Deno.readTextFile(join(dir, ".framework", "construction.log"));
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return [];
    throw err;
  }
  assert.ok(text.endsWith("\n"), "the log ends with a newline");
  return text.slice(0, -1).split("\n").map((line) => {
    const e = JSON.parse(line) as LogEntry;
    for (const key of ["ts", "actor", "op", "path", "old", "new"]) {
      assert.ok(key in e, `log line has ${key}: ${line}`);
    }
    assert.equal(typeof e.ts, "string");
    assert.ok(!Number.isNaN(Date.parse(e.ts)), `ts is a time: ${e.ts}`);
    assert.equal(e.actor, "cli");
    assert.equal(typeof e.op, "string");
    assert.equal(typeof e.path, "string");
    return e;
  });
}

/** Reads and parses `<harness>/harness.yaml`. */
async function readSpec(dir: string): Promise<Json> {
  return parseYaml(await Deno.readTextFile(join(dir, "harness.yaml")));
}

/** Creates a harness from the default template with `framework init --json`. */
async function newHarness(home: string, dir: string): Promise<string> {
  const r = await cli(["init", dir, "--json"], home);
  assert.equal(r.code, 0, r.stderr + r.stdout);
  return dir;
}

/** Snapshot of harness.yaml and the construction log, to prove a refused edit changed nothing. */
async function snapshot(dir: string): Promise<() => Promise<void>> {
  const spec = await Deno.readFile(join(dir, "harness.yaml"));
  const log = await readLog(dir);
  return async () => {
    assert.deepEqual(await Deno.readFile(join(dir, "harness.yaml")), spec, "byte-identical");
    assert.deepEqual(await readLog(dir), log, "no construction-log line for a refused change");
  };
}

const VERBS = ["init", "validate", "get", "set", "add", "remove", "schema", "trust"];

Deno.test("framework init creates a harness from the default template", async (t) => {
  await using home = await tempDir("fw-cli-home-");
  await using work = await tempDir("fw-cli-work-");

  await t.step("human: text on stdout, files written, id from the folder name", async () => {
    const dir = join(work.path, "My Bot_2");
    const out = humanOk(await cli(["init", dir], home.path));
    assert.match(out, /Created harness "my-bot-2"/);
    assert.match(out, /template hello/);
    assert.match(out, /framework validate/);
    const spec = await readSpec(dir);
    assert.equal(spec.id, "my-bot-2");
    assert.equal(spec.name, "My bot 2", "named after the folder, not after the template");
    assert.equal(spec.model.provider, "scripted");
    assert.equal((await Deno.stat(join(dir, ".gitignore"))).isFile, true);
    assert.equal((await Deno.stat(join(dir, "workspace", "note.txt"))).isFile, true);
    const log = await readLog(dir);
    assert.equal(log.length, 1);
    assert.equal(log[0]!.op, "init");
    assert.equal(log[0]!.new, "hello");
  });

  await t.step("--json: the ok wrapper with dir, id, template, files, spec_version", async () => {
    const dir = join(work.path, "hello");
    const data = jsonOk(await cli(["init", dir, "--json"], home.path));
    assert.equal(data.dir, dir);
    assert.equal(data.id, "hello");
    assert.equal(data.template, "hello");
    assert.deepEqual(
      [...data.files].sort(),
      [".gitignore", "harness.yaml", "workspace/note.txt"],
    );
    assert.match(data.spec_version, /^[0-9a-f]{64}$/);
    // The harness it made is valid and has the same version.
    const v = jsonOk(await cli(["validate", dir, "--json"], home.path));
    assert.equal(v.valid, true);
    assert.equal(v.spec_version, data.spec_version);
  });

  await t.step("--id and --name set the id and display name (relative folder)", async () => {
    const data = jsonOk(
      await cli(
        ["init", "custom", "--id", "support-bot", "--name", 'Bot: #1 "x"', "--json"],
        home.path,
        work.path,
      ),
    );
    const dir = join(work.path, "custom");
    assert.equal(data.dir, dir);
    assert.equal(data.id, "support-bot");
    const spec = await readSpec(dir);
    assert.equal(spec.id, "support-bot");
    assert.equal(spec.name, 'Bot: #1 "x"');
  });
});

Deno.test("framework init refuses bad input and leaves nothing behind", async (t) => {
  await using home = await tempDir("fw-cli-home-");
  await using work = await tempDir("fw-cli-work-");

  await t.step("unknown template: exit 2, no folder created", async () => {
    const dir = join(work.path, "t1");
    const err = humanError(await cli(["init", dir, "--template", "nope"], home.path), 2);
    assert.match(err, /Unknown template "nope"/);
    assert.match(err, /hello/);
    const e = jsonError(
      await cli(["init", dir, "--template", "nope", "--json"], home.path),
      "bad_input",
      2,
    );
    assert.match(e.message, /Unknown template "nope"/);
    await assert.rejects(Deno.stat(dir), Deno.errors.NotFound);
  });

  await t.step("a folder name that is no valid id: exit 2, asks for --id", async () => {
    const dir = join(work.path, "___");
    const err = humanError(await cli(["init", dir], home.path), 2);
    assert.match(err, /--id/);
    const e = jsonError(await cli(["init", dir, "--json"], home.path), "bad_input", 2);
    assert.match(e.message, /harness id/);
    assert.match(e.message, /--id/);
    await assert.rejects(Deno.stat(dir), Deno.errors.NotFound);
  });

  await t.step("an invalid --id: exit 2", async () => {
    const dir = join(work.path, "fine");
    const e = jsonError(
      await cli(["init", dir, "--id", "Bad_Id", "--json"], home.path),
      "bad_input",
      2,
    );
    assert.match(e.message, /"Bad_Id"/);
    assert.equal(e.details.id, "Bad_Id");
    await assert.rejects(Deno.stat(dir), Deno.errors.NotFound);
  });

  await t.step("an existing harness.yaml is never overwritten", async () => {
    const dir = await newHarness(home.path, join(work.path, "existing"));
    await cli(["set", dir, "limits.max_turns", "9"], home.path);
    const unchanged = await snapshot(dir);
    const note = await Deno.readFile(join(dir, "workspace", "note.txt"));
    const err = humanError(await cli(["init", dir], home.path), 2);
    assert.match(err, /already holds a harness\.yaml/);
    const e = jsonError(
      await cli(["init", dir, "--id", "other", "--json"], home.path),
      "bad_input",
      2,
    );
    assert.match(e.message, /refusing to overwrite/);
    await unchanged();
    assert.deepEqual(await Deno.readFile(join(dir, "workspace", "note.txt")), note);
    assert.equal((await readSpec(dir)).limits.max_turns, 9);
  });

  await t.step("a missing folder argument is a usage error", async () => {
    const e = jsonError(await cli(["init", "--json"], home.path), "bad_input", 2);
    assert.match(e.message, /^Usage error: .*dir/);
    assert.match(e.message, /framework init --help/);
  });
});

Deno.test("framework validate reports every issue with its position", async (t) => {
  await using home = await tempDir("fw-cli-home-");
  await using work = await tempDir("fw-cli-work-");
  const valid = await newHarness(home.path, join(work.path, "valid"));
  const invalid = join(work.path, "invalid");
  await writeFiles(invalid, {
    "harness.yaml": [
      "id: Bad_Id",
      "model:",
      "  provider: scripted",
      "  name: x",
      "  replies:",
      "    - text: hi",
      "limits:",
      '  max_turns: "12"',
      "  max_turnz: 3",
      "",
    ].join("\n"),
  });
  const broken = join(work.path, "broken");
  await writeFiles(broken, { "harness.yaml": "id: x\nmodel: [unclosed\n  foo: : :\n" });

  await t.step("valid: exit 0, human text on stdout", async () => {
    const out = humanOk(await cli(["validate", valid], home.path));
    assert.match(out, /^harness\.yaml is valid \(spec version [0-9a-f]{64}\)/);
  });

  await t.step("valid --json: {valid: true, issues: []}", async () => {
    const data = jsonOk(await cli(["validate", valid, "--json"], home.path));
    assert.equal(data.valid, true);
    assert.deepEqual(data.issues, []);
    assert.equal(data.id, "valid");
    assert.match(data.spec_version, /^[0-9a-f]{64}$/);
  });

  await t.step("invalid: exit 2, every issue listed on stdout with line and column", async () => {
    const r = await cli(["validate", invalid], home.path);
    assert.equal(r.code, 2);
    assert.equal(r.stderr, "");
    const lines = r.stdout.trimEnd().split("\n");
    assert.match(lines[0]!, /^harness\.yaml has 3 error\(s\):$/);
    assert.ok(lines.some((l) => /^harness\.yaml:1:\d+ id: /.test(l)), r.stdout);
    assert.ok(
      lines.some((l) => /^harness\.yaml:8:\d+ limits\.max_turns: Expected a number/.test(l)),
      r.stdout,
    );
    assert.ok(
      lines.some((l) =>
        /^harness\.yaml:9:\d+ limits\.max_turnz: .*did you mean "max_turns"/.test(l)
      ),
      r.stdout,
    );
  });

  await t.step("invalid --json: exit 2, ok true, valid false, issues with positions", async () => {
    const data = jsonOk(await cli(["validate", invalid, "--json"], home.path), 2);
    assert.equal(data.valid, false);
    assert.equal("spec_version" in data, false);
    assert.ok(Array.isArray(data.issues));
    assert.equal(data.issues.length, 3);
    for (const issue of data.issues) {
      assert.equal(typeof issue.path, "string");
      assert.equal(typeof issue.message, "string");
      assert.ok(Number.isInteger(issue.line) && issue.line >= 1, JSON.stringify(issue));
      assert.ok(Number.isInteger(issue.column) && issue.column >= 1, JSON.stringify(issue));
      assert.ok(["error", "warning"].includes(issue.severity));
    }
    const byPath = new Map<string, Json>(data.issues.map((i: Json) => [i.path, i]));
    assert.deepEqual([...byPath.keys()].sort(), ["id", "limits.max_turns", "limits.max_turnz"]);
    assert.equal(byPath.get("id").line, 1);
    assert.equal(byPath.get("limits.max_turns").line, 8);
    assert.equal(byPath.get("limits.max_turns").column, 14);
    assert.match(byPath.get("limits.max_turnz").message, /did you mean "max_turns"/);
  });

  await t.step("unparsable YAML: exit 2, Invalid YAML issues with positions", async () => {
    const r = await cli(["validate", broken], home.path);
    assert.equal(r.code, 2);
    assert.equal(r.stderr, "");
    assert.match(r.stdout, /^harness\.yaml has \d+ error\(s\):\n/);
    assert.match(r.stdout, /harness\.yaml:\d+:\d+ Invalid YAML: /);
    const data = jsonOk(await cli(["validate", broken, "--json"], home.path), 2);
    assert.equal(data.valid, false);
    assert.ok(data.issues.length >= 1);
    for (const issue of data.issues) {
      assert.equal(issue.path, "");
      assert.match(issue.message, /^Invalid YAML: /);
      assert.ok(Number.isInteger(issue.line) && Number.isInteger(issue.column));
    }
  });

  await t.step("missing folder: exit 2, kind bad_input", async () => {
    const missing = join(work.path, "nowhere");
    const err = humanError(await cli(["validate", missing], home.path), 2);
    assert.match(err, /Harness folder not found/);
    const e = jsonError(await cli(["validate", missing, "--json"], home.path), "bad_input", 2);
    assert.match(e.message, /framework init/);
  });

  await t.step("warnings alone keep the spec valid: exit 0", async () => {
    const warned = join(work.path, "warned");
    await writeFiles(warned, {
      "harness.yaml": [
        "id: warned",
        "model: {provider: scripted, name: x, replies: [{text: hi}]}",
        "guardrails:",
        "  - builtin: allow_tools",
        "    tools: [nope]",
        "",
      ].join("\n"),
    });
    const data = jsonOk(await cli(["validate", warned, "--json"], home.path));
    assert.equal(data.valid, true);
    assert.equal(data.issues.length, 1);
    assert.equal(data.issues[0].severity, "warning");
    assert.equal(data.issues[0].path, "guardrails.0.tools.0");
    assert.equal(data.issues[0].line, 5);
  });
});

Deno.test("framework get reads the spec, dotted fields and list entries", async (t) => {
  await using home = await tempDir("fw-cli-home-");
  await using work = await tempDir("fw-cli-work-");
  const dir = await newHarness(home.path, join(work.path, "h"));

  await t.step("whole spec: YAML for people, the parsed value with --json", async () => {
    const out = humanOk(await cli(["get", dir], home.path));
    const parsed = parseYaml(out);
    assert.equal(parsed.id, "h");
    assert.equal(parsed.model.provider, "scripted");
    const data = jsonOk(await cli(["get", dir, "--json"], home.path));
    assert.equal(data.path, "");
    assert.equal(data.exists, true);
    assert.deepEqual(data.value, await readSpec(dir));
  });

  await t.step("a dotted field: a bare scalar, a typed value with --json", async () => {
    assert.equal(humanOk(await cli(["get", dir, "limits.max_turns"], home.path)), "4\n");
    const data = jsonOk(await cli(["get", dir, "limits.max_turns", "--json"], home.path));
    assert.deepEqual(data, { path: "limits.max_turns", value: 4, exists: true });
  });

  await t.step("a known field that is not set is null", async () => {
    const data = jsonOk(await cli(["get", dir, "logging.trace_dir", "--json"], home.path));
    assert.deepEqual(data, { path: "logging.trace_dir", value: null, exists: false });
  });

  await t.step("a list entry by name: skills.greeting", async () => {
    const out = humanOk(await cli(["get", dir, "skills.greeting"], home.path));
    assert.match(out, /^name: greeting$/m);
    const data = jsonOk(await cli(["get", dir, "skills.greeting", "--json"], home.path));
    assert.equal(data.exists, true);
    assert.equal(data.value.name, "greeting");
    assert.equal(data.value.description, "How to greet people");
  });

  await t.step("a list entry by builtin name and by index", async () => {
    const byName = jsonOk(await cli(["get", dir, "tools.file_read", "--json"], home.path));
    assert.deepEqual(byName.value, { builtin: "file_read" });
    const byIndex = jsonOk(await cli(["get", dir, "tools.0", "--json"], home.path));
    assert.deepEqual(byIndex, { path: "tools.0", value: { builtin: "file_read" }, exists: true });
  });

  await t.step("an unknown path: exit 2 with a did-you-mean hint", async () => {
    const err = humanError(await cli(["get", dir, "limits.max_turnz"], home.path), 2);
    assert.match(err, /Unknown path "limits\.max_turnz"/);
    assert.match(err, /did you mean "limits\.max_turns"\?/);
    const e = jsonError(
      await cli(["get", dir, "limits.max_turnz", "--json"], home.path),
      "bad_input",
      2,
    );
    assert.match(e.message, /did you mean "limits\.max_turns"\?/);
    assert.equal(e.details.path, "limits.max_turnz");
  });

  await t.step("an unknown entry name: exit 2 with a hint", async () => {
    const e = jsonError(
      await cli(["get", dir, "skills.greetin", "--json"], home.path),
      "bad_input",
      2,
    );
    assert.match(e.message, /No entry named "greetin"/);
    assert.match(e.message, /did you mean "greeting"\?/);
  });
});

Deno.test("framework set keeps a number typed", async (t) => {
  await using home = await tempDir("fw-cli-home-");
  await using work = await tempDir("fw-cli-work-");
  const dir = await newHarness(home.path, join(work.path, "h"));

  await t.step("human: old -> new on stdout, a number in the file and in get", async () => {
    const out = humanOk(await cli(["set", dir, "limits.max_turns", "12"], home.path));
    assert.equal(out, "limits.max_turns: 4 -> 12\n");
    const text = await Deno.readTextFile(join(dir, "harness.yaml"));
    assert.match(text, /^ {2}max_turns: 12 # one turn/m, "unquoted, comment kept");
    assert.equal((await readSpec(dir)).limits.max_turns, 12);
    const got = jsonOk(await cli(["get", dir, "limits.max_turns", "--json"], home.path));
    assert.equal(got.value, 12);
    assert.equal(typeof got.value, "number");
  });

  await t.step("--json: {path, old, new, spec_version, changed}", async () => {
    const data = jsonOk(
      await cli(["set", dir, "limits.max_cost_usd", "0.25", "--json"], home.path),
    );
    assert.equal(data.path, "limits.max_cost_usd");
    assert.equal(data.old, 0.1);
    assert.equal(data.new, 0.25);
    assert.equal(data.changed, true);
    assert.match(data.spec_version, /^[0-9a-f]{64}$/);
    assert.equal((await readSpec(dir)).limits.max_cost_usd, 0.25);
  });

  await t.step("the same value again: changed false, nothing logged", async () => {
    const unchanged = await snapshot(dir);
    const data = jsonOk(await cli(["set", dir, "limits.max_turns", "12", "--json"], home.path));
    assert.equal(data.changed, false);
    assert.equal(data.old, 12);
    await unchanged();
  });

  await t.step("the construction log has one line per change", async () => {
    const log = await readLog(dir);
    assert.deepEqual(
      log.map((e) => [e.op, e.path, e.old, e.new]),
      [
        ["init", "", null, "hello"],
        ["set", "limits.max_turns", 4, 12],
        ["set", "limits.max_cost_usd", 0.1, 0.25],
      ],
    );
  });
});

Deno.test("framework set keeps a string typed and refuses it for a number field", async (t) => {
  await using home = await tempDir("fw-cli-home-");
  await using work = await tempDir("fw-cli-work-");
  const dir = await newHarness(home.path, join(work.path, "h"));

  await t.step("'\"12\"' for limits.max_turns: exit 2, file byte-identical", async () => {
    const unchanged = await snapshot(dir);
    const err = humanError(await cli(["set", dir, "limits.max_turns", '"12"'], home.path), 2);
    assert.match(err, /Cannot set "limits\.max_turns"/);
    assert.match(err, /Expected a number, got "12"/);
    const e = jsonError(
      await cli(["set", dir, "limits.max_turns", '"12"', "--json"], home.path),
      "bad_input",
      2,
    );
    assert.match(e.message, /Expected a number/);
    assert.equal(e.details.issues[0].path, "limits.max_turns");
    assert.equal(typeof e.details.issues[0].line, "number");
    await unchanged();
  });

  await t.step("--string 12 for limits.max_turns is a string and refused too", async () => {
    const unchanged = await snapshot(dir);
    jsonError(
      await cli(["set", dir, "limits.max_turns", "12", "--string", "--json"], home.path),
      "bad_input",
      2,
    );
    await unchanged();
  });

  await t.step('\'"12"\' for name is the string "12" in the file and in get', async () => {
    const data = jsonOk(await cli(["set", dir, "name", '"12"', "--json"], home.path));
    assert.equal(data.new, "12");
    assert.equal((await readSpec(dir)).name, "12");
    const got = jsonOk(await cli(["get", dir, "name", "--json"], home.path));
    assert.equal(got.value, "12");
  });

  await t.step("--string takes the raw text, YAML-special characters included", async () => {
    const raw = 'a: b # c "d"';
    const out = humanOk(await cli(["set", dir, "description", raw, "--string"], home.path));
    assert.match(out, /^description: ".*" -> "a: b # c \\"d\\""\n$/);
    assert.equal((await readSpec(dir)).description, raw);
    assert.equal(humanOk(await cli(["get", dir, "description"], home.path)), raw + "\n");
  });

  await t.step("the log has the typed values", async () => {
    const log = await readLog(dir);
    assert.equal(log.length, 3);
    assert.deepEqual(log[1], { ...log[1], op: "set", path: "name", old: "H", new: "12" });
    assert.equal(log[2]!.new, 'a: b # c "d"');
  });
});

Deno.test("framework set refuses a value that is not JSON and an unknown path", async (t) => {
  await using home = await tempDir("fw-cli-home-");
  await using work = await tempDir("fw-cli-work-");
  const dir = await newHarness(home.path, join(work.path, "h"));
  const unchanged = await snapshot(dir);

  await t.step("not JSON: exit 2, says to quote it or pass --string", async () => {
    const err = humanError(await cli(["set", dir, "name", "hello"], home.path), 2);
    assert.match(err, /Cannot parse the value "hello" as JSON/);
    assert.match(err, /'"hello"'/);
    assert.match(err, /--string/);
    const e = jsonError(
      await cli(["set", dir, "name", "hello", "--json"], home.path),
      "bad_input",
      2,
    );
    assert.match(e.message, /quote a string/);
    assert.match(e.message, /--string/);
    assert.equal(e.details.value, "hello");
  });

  await t.step("unknown path: exit 2 with a hint", async () => {
    const err = humanError(await cli(["set", dir, "limits.max_turnz", "3"], home.path), 2);
    assert.match(err, /did you mean "limits\.max_turns"\?/);
    const e = jsonError(
      await cli(["set", dir, "modle.name", '"x"', "--json"], home.path),
      "bad_input",
      2,
    );
    assert.match(e.message, /Unknown path "modle\.name"/);
    assert.match(e.message, /did you mean "model"\?/);
  });

  await t.step("a value that breaks the schema: exit 2", async () => {
    const e = jsonError(
      await cli(["set", dir, "id", '"Bad Id"', "--json"], home.path),
      "bad_input",
      2,
    );
    assert.equal(e.details.issues[0].path, "id");
  });

  await t.step("a missing value is a usage error", async () => {
    const e = jsonError(
      await cli(["set", dir, "limits.max_turns", "--json"], home.path),
      "bad_input",
      2,
    );
    assert.match(e.message, /^Usage error: /);
    assert.match(e.message, /framework set --help/);
  });

  await t.step("after every refused edit the file is byte-identical", async () => {
    await unchanged();
  });
});

Deno.test("framework add appends skills, tools, validators and guardrails", async (t) => {
  await using home = await tempDir("fw-cli-home-");
  await using work = await tempDir("fw-cli-work-");
  const dir = await newHarness(home.path, join(work.path, "h"));

  await t.step("a skill via flags (human)", async () => {
    const out = humanOk(
      await cli([
        "add",
        dir,
        "skill",
        "--name",
        "refunds",
        "--description",
        "Refund requests",
        "--instructions",
        "Ask for the order id.",
      ], home.path),
    );
    assert.equal(out, 'Added skill "refunds"\n');
    const skills = (await readSpec(dir)).skills;
    assert.deepEqual(skills.at(-1), {
      name: "refunds",
      description: "Refund requests",
      instructions: "Ask for the order id.",
    });
  });

  await t.step("a tool via a JSON item (--json)", async () => {
    const data = jsonOk(
      await cli([
        "add",
        dir,
        "tool",
        '{"code": "tools/lookup.ts#lookup", "description": "Look up an order"}',
        "--json",
      ], home.path),
    );
    assert.equal(data.kind, "tool");
    assert.equal(data.name, "lookup");
    assert.match(data.spec_version, /^[0-9a-f]{64}$/);
    const got = jsonOk(await cli(["get", dir, "tools.lookup", "--json"], home.path));
    assert.deepEqual(got.value, {
      code: "tools/lookup.ts#lookup",
      description: "Look up an order",
    });
  });

  await t.step("a validator with --option (JSON and raw values)", async () => {
    const data = jsonOk(
      await cli([
        "add",
        dir,
        "validator",
        "--builtin",
        "regex",
        "--option",
        'pattern="order #\\\\d+"',
        "--json",
      ], home.path),
    );
    assert.deepEqual(data.kind, "validator");
    assert.deepEqual(data.name, "regex");
    const spec = await readSpec(dir);
    assert.deepEqual(spec.verify.validators.at(-1), { builtin: "regex", pattern: "order #\\d+" });
    jsonOk(
      await cli(
        [
          "add",
          dir,
          "guardrail",
          "--builtin",
          "deny_pattern",
          "--option",
          "pattern=password",
          "--option",
          "flags=i",
          "--json",
        ],
        home.path,
      ),
    );
    assert.deepEqual((await readSpec(dir)).guardrails, [
      { builtin: "deny_pattern", pattern: "password", flags: "i" },
    ]);
  });

  await t.step("the spec stays valid and the log has one add line per entry", async () => {
    // validate checks code refs too: the added tool's module must exist and export it.
    const missing = jsonOk(await cli(["validate", dir, "--json"], home.path), 2);
    assert.deepEqual(missing.issues.map((i: { path: string }) => i.path), ["tools.1.code"]);
    await Deno.mkdir(join(dir, "tools"), { recursive: true });
    await Deno.writeTextFile(
      join(dir, "tools/lookup.ts"),
      "export function lookup() {\n  return 1;\n}\n",
    );
    jsonOk(await cli(["validate", dir, "--json"], home.path));
    const adds = (await readLog(dir)).filter((e) => e.op === "add");
    assert.deepEqual(adds.map((e) => [e.path, e.old]), [
      ["skills.refunds", null],
      ["tools.lookup", null],
      ["verify.validators.regex", null],
      ["guardrails.deny_pattern", null],
    ]);
    assert.deepEqual(adds[0]!.new, {
      name: "refunds",
      description: "Refund requests",
      instructions: "Ask for the order id.",
    });
    assert.deepEqual(adds[2]!.new, { builtin: "regex", pattern: "order #\\d+" });
  });
});

Deno.test("framework add refuses duplicates, unknown kinds and malformed entries", async (t) => {
  await using home = await tempDir("fw-cli-home-");
  await using work = await tempDir("fw-cli-work-");
  const dir = await newHarness(home.path, join(work.path, "h"));
  const unchanged = await snapshot(dir);

  await t.step("a duplicate skill name: exit 2", async () => {
    const args = [
      "add",
      dir,
      "skill",
      "--name",
      "greeting",
      "--description",
      "d",
      "--instructions",
      "i",
    ];
    const err = humanError(await cli(args, home.path), 2);
    assert.match(err, /a skill named "greeting" already exists/);
    const e = jsonError(await cli([...args, "--json"], home.path), "bad_input", 2);
    assert.equal(e.details.name, "greeting");
  });

  await t.step("an unknown kind: exit 2, lists the kinds", async () => {
    const err = humanError(await cli(["add", dir, "widget", "--name", "x"], home.path), 2);
    assert.match(err, /Unknown kind "widget"/);
    const e = jsonError(
      await cli(["add", dir, "widget", "--name", "x", "--json"], home.path),
      "bad_input",
      2,
    );
    assert.match(e.message, /tool, validator, guardrail, hook, skill/);
  });

  await t.step(
    "an item that is not a JSON object, a bad --option, a half skill: exit 2",
    async () => {
      jsonError(await cli(["add", dir, "tool", "[1]", "--json"], home.path), "bad_input", 2);
      const opt = jsonError(
        await cli(
          ["add", dir, "validator", "--builtin", "regex", "--option", "pattern", "--json"],
          home.path,
        ),
        "bad_input",
        2,
      );
      assert.match(opt.message, /expected key=value/);
      const half = jsonError(
        await cli(["add", dir, "skill", "--name", "half", "--json"], home.path),
        "bad_input",
        2,
      );
      assert.match(half.message, /Missing required field "description"/);
    },
  );

  await t.step("after every refused add the file is byte-identical", async () => {
    await unchanged();
  });
});

Deno.test("framework remove deletes fields and entries", async (t) => {
  await using home = await tempDir("fw-cli-home-");
  await using work = await tempDir("fw-cli-work-");
  const dir = await newHarness(home.path, join(work.path, "h"));

  await t.step("by dotted path (human)", async () => {
    const out = humanOk(await cli(["remove", dir, "skills.greeting"], home.path));
    assert.equal(out, "Removed skills.greeting\n");
    assert.deepEqual((await readSpec(dir)).skills, []);
  });

  await t.step("a field by dotted path (--json)", async () => {
    const data = jsonOk(await cli(["remove", dir, "limits.max_cost_usd", "--json"], home.path));
    assert.equal(data.removed, "limits.max_cost_usd");
    assert.match(data.spec_version, /^[0-9a-f]{64}$/);
    const limits = (await readSpec(dir)).limits;
    assert.equal("max_cost_usd" in limits, false);
    assert.equal(limits.max_turns, 4);
  });

  await t.step("an entry by --kind and --name (builtin name)", async () => {
    const data = jsonOk(
      await cli(["remove", dir, "--kind", "validator", "--name", "non_empty", "--json"], home.path),
    );
    assert.equal(data.removed, "verify.validators.non_empty");
    assert.deepEqual((await readSpec(dir)).verify.validators, []);
    const e = jsonError(
      await cli(["get", dir, "verify.validators.non_empty", "--json"], home.path),
      "bad_input",
      2,
    );
    assert.match(e.message, /No entry named "non_empty"/);
  });

  await t.step("the log has the old value and new null", async () => {
    const removes = (await readLog(dir)).filter((e) => e.op === "remove");
    assert.deepEqual(removes.map((e) => [e.path, e.new]), [
      ["skills.greeting", null],
      ["limits.max_cost_usd", null],
      ["verify.validators.non_empty", null],
    ]);
    assert.equal((removes[0]!.old as { name: string }).name, "greeting");
    assert.equal(removes[1]!.old, 0.1);
    assert.deepEqual(removes[2]!.old, { builtin: "non_empty" });
  });
});

Deno.test("framework remove refuses required fields and missing targets", async (t) => {
  await using home = await tempDir("fw-cli-home-");
  await using work = await tempDir("fw-cli-work-");
  const dir = await newHarness(home.path, join(work.path, "h"));
  const unchanged = await snapshot(dir);

  await t.step("removing the required id: exit 2, file byte-identical", async () => {
    const err = humanError(await cli(["remove", dir, "id"], home.path), 2);
    assert.match(err, /Cannot remove "id"/);
    assert.match(err, /Missing required field "id"/);
    const e = jsonError(await cli(["remove", dir, "model", "--json"], home.path), "bad_input", 2);
    assert.equal(e.details.issues[0].path, "model");
    await unchanged();
  });

  await t.step("no target: a usage error, exit 2", async () => {
    const err = humanError(await cli(["remove", dir], home.path), 2);
    assert.match(err, /Missing target/);
    const e = jsonError(
      await cli(["remove", dir, "--kind", "tool", "--json"], home.path),
      "bad_input",
      2,
    );
    assert.match(e.message, /--kind and --name/);
  });

  await t.step("a target that is not there, or an unknown kind: exit 2", async () => {
    const gone = jsonError(
      await cli(["remove", dir, "logging.trace_dir", "--json"], home.path),
      "bad_input",
      2,
    );
    assert.match(gone.message, /nothing is set there/);
    const entry = jsonError(
      await cli(["remove", dir, "--kind", "skill", "--name", "nope", "--json"], home.path),
      "bad_input",
      2,
    );
    assert.match(entry.message, /No entry named "nope"/);
    const kind = jsonError(
      await cli(["remove", dir, "--kind", "widget", "--name", "x", "--json"], home.path),
      "bad_input",
      2,
    );
    assert.match(kind.message, /Unknown kind "widget"/);
  });

  await t.step("after every refused remove the file is byte-identical", async () => {
    await unchanged();
  });
});

Deno.test("framework trust trusts, lists and revokes folders", async (t) => {
  await using home = await tempDir("fw-cli-home-");
  await using work = await tempDir("fw-cli-work-");
  const dir = await newHarness(home.path, join(work.path, "h"));

  await t.step("an empty store lists nothing", async () => {
    assert.equal(humanOk(await cli(["trust", "--list"], home.path)), "No trusted folders.\n");
    assert.deepEqual(jsonOk(await cli(["trust", "--list", "--json"], home.path)), { trusted: [] });
  });

  await t.step("trust a folder (relative path), then again: added false", async () => {
    const out = humanOk(await cli(["trust", "h"], home.path, work.path));
    assert.equal(out, `Trusted: ${dir}\n`);
    const data = jsonOk(await cli(["trust", dir, "--json"], home.path));
    assert.deepEqual(data, { trusted: dir, added: false });
    const store = JSON.parse(await Deno.readTextFile(join(home.path, "trust.json")));
    assert.deepEqual(store.trusted.map((e: Json) => e.path), [dir]);
  });

  await t.step("--list shows the folder", async () => {
    const out = humanOk(await cli(["trust", "--list"], home.path));
    assert.match(out, new RegExp(`^${dir.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}  \\(since `));
    const data = jsonOk(await cli(["trust", "--list", "--json"], home.path));
    assert.equal(data.trusted.length, 1);
    assert.equal(data.trusted[0].path, dir);
    assert.ok(!Number.isNaN(Date.parse(data.trusted[0].trusted_at)));
  });

  await t.step("--revoke removes it", async () => {
    const data = jsonOk(await cli(["trust", "--revoke", dir, "--json"], home.path));
    assert.deepEqual(data, { revoked: dir });
    assert.deepEqual(jsonOk(await cli(["trust", "--list", "--json"], home.path)), { trusted: [] });
  });

  await t.step("revoking an untrusted folder: exit 2, kind not_found", async () => {
    const err = humanError(await cli(["trust", "--revoke", dir], home.path), 2);
    assert.match(err, /Not trusted/);
    const e = jsonError(
      await cli(["trust", "--revoke", dir, "--json"], home.path),
      "not_found",
      2,
    );
    assert.match(e.message, /framework trust --list/);
  });

  await t.step("no argument, or two: a usage error, exit 2", async () => {
    const err = humanError(await cli(["trust"], home.path), 2);
    assert.match(err, /exactly one of/);
    jsonError(await cli(["trust", "--json"], home.path), "bad_input", 2);
    jsonError(await cli(["trust", dir, "--list", "--json"], home.path), "bad_input", 2);
  });

  await t.step("a folder that does not exist: exit 2, kind bad_input", async () => {
    const e = jsonError(
      await cli(["trust", join(work.path, "nowhere"), "--json"], home.path),
      "bad_input",
      2,
    );
    assert.match(e.message, /Not a folder/);
  });
});

Deno.test("framework schema prints the JSON Schema of harness.yaml", async (t) => {
  await using home = await tempDir("fw-cli-home-");

  await t.step("human: the schema as JSON on stdout", async () => {
    const r = await cli(["schema"], home.path);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, "");
    const schema = JSON.parse(r.stdout);
    assert.equal(schema.type, "object");
    assert.match(schema.$schema, /json-schema\.org/);
    assert.ok("id" in schema.properties);
    assert.ok("model" in schema.properties);
    assert.ok(schema.required.includes("id"));
  });

  await t.step("--json: wrapped in {ok: true, data}", async () => {
    const data = jsonOk(await cli(["schema", "--json"], home.path));
    assert.equal(data.type, "object");
    assert.ok("id" in data.properties);
    assert.ok("model" in data.properties);
  });
});

Deno.test("framework --version, --help and usage errors", async (t) => {
  await using home = await tempDir("fw-cli-home-");

  await t.step("--version prints 0.1.0", async () => {
    const r = await cli(["--version"], home.path);
    assert.equal(r.code, 0);
    assert.equal(r.stdout, "0.1.0\n");
  });

  await t.step("--version and --help with --json print one ok-wrapped document", async () => {
    const [version, help] = await Promise.all([
      cli(["--version", "--json"], home.path),
      cli(["get", "--help", "--json"], home.path),
    ]);
    assert.equal(version.code, 0);
    assert.deepEqual(version.json(), { ok: true, data: { version: "0.1.0" } });
    assert.equal(help.code, 0);
    const doc = help.json();
    assert.equal(doc.ok, true);
    assert.match(doc.data.help, /^Usage: framework get/);
    assert.equal(help.stdout.trim().split("\n").length, 1);
  });

  await t.step("--help on the root and on every verb exits 0 with usage on stdout", async () => {
    const runs = await Promise.all([
      cli(["--help"], home.path),
      ...VERBS.map((v) => cli([v, "--help"], home.path)),
    ]);
    const [root, ...rest] = runs;
    assert.equal(root!.code, 0);
    assert.match(root!.stdout, /^Usage: framework /);
    for (const verb of VERBS) assert.match(root!.stdout, new RegExp(`^ {2}${verb} `, "m"));
    VERBS.forEach((verb, i) => {
      const r = rest[i]!;
      assert.equal(r.code, 0, `${verb} --help: ${r.stderr}`);
      assert.match(r.stdout, new RegExp(`^Usage: framework ${verb} `), verb);
      assert.match(r.stdout, /--json/, `${verb} --help documents --json`);
    });
  });

  await t.step("an unknown verb: exit 2, error on stderr", async () => {
    const err = humanError(await cli(["frobnicate"], home.path), 2);
    assert.match(err, /^error: Usage error: unknown command 'frobnicate'/);
    assert.match(err, /framework --help/);
  });

  await t.step("an unknown verb with --json: exactly one ok:false document", async () => {
    const e = jsonError(await cli(["frobnicate", "--json"], home.path), "bad_input", 2);
    assert.match(e.message, /unknown command 'frobnicate'/);
    assert.deepEqual(e.details, {});
  });

  await t.step(
    "an unknown option with --json: one ok:false document naming the verb's help",
    async () => {
      const e = jsonError(await cli(["get", ".", "--bogus", "--json"], home.path), "bad_input", 2);
      assert.match(e.message, /unknown option '--bogus'/);
      assert.match(e.message, /framework get --help/);
    },
  );

  await t.step("no arguments: help and exit 2", async () => {
    const r = await cli([], home.path);
    assert.equal(r.code, 2);
    assert.match(r.stdout + r.stderr, /Usage: framework /);
  });
});

Deno.test("framework construction log records every successful change in order", async (t) => {
  await using home = await tempDir("fw-cli-home-");
  await using work = await tempDir("fw-cli-work-");
  const dir = await newHarness(home.path, join(work.path, "h"));

  await t.step("set, add, remove succeed; refused and no-op edits add nothing", async () => {
    const steps: [string[], number][] = [
      [["set", dir, "limits.timeout_s", "30"], 0],
      [["set", dir, "limits.timeout_s", '"30"'], 2],
      [["add", dir, "tool", "--builtin", "list_files"], 0],
      [["set", dir, "limits.timeout_s", "30"], 0],
      [["remove", dir, "tools.list_files"], 0],
      [["remove", dir, "id"], 2],
    ];
    for (const [args, code] of steps) {
      const r = await cli(args, home.path);
      assert.equal(r.code, code, `${args.join(" ")}: ${r.stderr}`);
    }
    const text = await Deno.readTextFile(join(dir, ".framework", "construction.log"));
    const lines = text.trimEnd().split("\n");
    assert.equal(lines.length, 4, text);
    const log = await readLog(dir);
    assert.deepEqual(log.map((e) => [e.actor, e.op, e.path, e.old, e.new]), [
      ["cli", "init", "", null, "hello"],
      ["cli", "set", "limits.timeout_s", 60, 30],
      ["cli", "add", "tools.list_files", null, { builtin: "list_files" }],
      ["cli", "remove", "tools.list_files", { builtin: "list_files" }, null],
    ]);
    const times = log.map((e) => Date.parse(e.ts));
    assert.deepEqual(times, [...times].sort((a, b) => a - b), "timestamps in order");
  });
});
