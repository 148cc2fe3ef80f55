import assert from "node:assert/strict";
import { addItem } from "../../lib/construct/add_item.ts";
import { readConstructionLog } from "../../lib/construct/construction_log.ts";
import { initHarness } from "../../lib/construct/init_harness.ts";
import { removeItem } from "../../lib/construct/remove_item.ts";
import { setField } from "../../lib/construct/set_field.ts";
import { FrameworkError } from "../../lib/errors.ts";
import { openHive } from "../../lib/hive/open.ts";
import { listSpecVersions } from "../../lib/hive/spec_versions.ts";
import { loadSpec } from "../../lib/harness_spec/load.ts";
import { tempDir, tempHome, writeFiles } from "../helpers/temp.ts";
import { byId } from "../helpers/hive.ts";

const CLI = { actor: "cli", policy: "local" } as const;
const HTTP = { actor: "http:key1", policy: "remote" } as const;

function kind(k: string, re?: RegExp) {
  return (err: unknown) =>
    err instanceof FrameworkError && err.kind === k && (!re || re.test(err.message));
}

async function bytes(dir: string): Promise<string> {
  return await Deno.readTextFile(`${dir}/harness.yaml`);
}

Deno.test("setField() writes a typed value, logs it and records a spec version", async () => {
  await using _home = await tempHome();
  await using tmp = await tempDir();
  const { dir } = await initHarness(`${tmp.path}/bot`);
  const r = await setField(dir, "limits.max_turns", 12, CLI);
  assert.equal(r.old, 4);
  assert.equal(r.new, 12);
  assert.equal(r.changed, true);
  const loaded = await loadSpec(dir);
  assert.equal(loaded.spec.limits?.max_turns, 12);
  assert.equal(r.spec_version, loaded.version);
  const log = await readConstructionLog(dir);
  assert.deepEqual(log.map((e) => [e.actor, e.op, e.path, e.old, e.new]), [
    ["cli", "init", "", null, "hello"],
    ["cli", "set", "limits.max_turns", 4, 12],
  ]);
  assert.ok(!Number.isNaN(Date.parse(log[1]!.ts)));
  const versions = listSpecVersions(openHive(), byId("bot"));
  assert.deepEqual(versions.map((v) => [v.version, v.source]), [[r.spec_version, "cli"], [
    versions[1]!.version,
    "init",
  ]]);
  assert.equal(versions[0]!.yaml, await bytes(dir));
});

Deno.test("setField() refuses an edit that breaks the schema and leaves the file byte-identical", async (t) => {
  await using _home = await tempHome();
  await using tmp = await tempDir();
  const { dir } = await initHarness(`${tmp.path}/bot`);
  const before = await bytes(dir);
  const cases: [string, unknown, RegExp][] = [
    ["limits.max_turns", "12", /Expected a number, got "12"/],
    ["limits.max_turns", -1, /too small|>0|greater/i],
    ["id", "Not A Slug", /slug/],
    ["model.provider", "gpt", /Expected one of/],
    ["limits.max_turnz", 3, /did you mean "limits.max_turns"/],
    ["skills.nope.name", "x", /No entry named "nope"/],
    ["", 1, /Missing path/],
  ];
  for (const [path, value, message] of cases) {
    await t.step(`${path} = ${JSON.stringify(value)}`, async () => {
      await assert.rejects(setField(dir, path, value, CLI), kind("bad_input", message));
      assert.equal(await bytes(dir), before);
    });
  }
  assert.equal((await readConstructionLog(dir)).length, 1, "only the init line");
});

Deno.test("setField() with the same value writes nothing", async () => {
  await using _home = await tempHome();
  await using tmp = await tempDir();
  const { dir } = await initHarness(`${tmp.path}/bot`);
  const r = await setField(dir, "limits.max_turns", 4, CLI);
  assert.equal(r.changed, false);
  assert.equal((await readConstructionLog(dir)).length, 1);
});

Deno.test("setField() over HTTP refuses frozen roots with 403 before reading", async (t) => {
  await using _home = await tempHome();
  await using tmp = await tempDir();
  const { dir } = await initHarness(`${tmp.path}/bot`);
  const before = await bytes(dir);
  for (
    const path of [
      "model.name",
      "name",
      "id",
      "tools",
      "evolution",
      "logging",
      "verify",
      "logging.redact.fields",
    ]
  ) {
    await t.step(path, async () => {
      await assert.rejects(setField(dir, path, "x", HTTP), kind("forbidden", /frozen/));
    });
  }
  assert.equal(await bytes(dir), before);
  const r = await setField(dir, "limits.max_turns", 6, HTTP);
  assert.equal(r.new, 6);
  assert.equal((await readConstructionLog(dir)).at(-1)!.actor, "http:key1");
});

Deno.test("setField() refuses a missing folder, a missing harness.yaml and broken YAML", async () => {
  await using _home = await tempHome();
  await using tmp = await tempDir();
  await assert.rejects(
    setField(`${tmp.path}/none`, "name", "x", CLI),
    kind("bad_input", /Harness folder not found/),
  );
  await Deno.mkdir(`${tmp.path}/empty`);
  await assert.rejects(
    setField(`${tmp.path}/empty`, "name", "x", CLI),
    kind("bad_input", /No harness.yaml/),
  );
  await writeFiles(tmp.path, { "broken/harness.yaml": "id: a\nmodel: [\n" });
  await assert.rejects(
    setField(`${tmp.path}/broken`, "name", "x", CLI),
    kind("bad_input", /does not parse/),
  );
  assert.equal(await bytes(`${tmp.path}/broken`), "id: a\nmodel: [\n");
});

Deno.test("addItem() appends entries and refuses duplicates and frozen lists", async (t) => {
  await using _home = await tempHome();
  await using tmp = await tempDir();
  const { dir } = await initHarness(`${tmp.path}/bot`);
  await t.step("a skill over HTTP", async () => {
    const r = await addItem(dir, "skill", {
      name: "refunds",
      description: "Refunds",
      instructions: "Ask first.",
    }, HTTP);
    assert.equal(r.kind, "skill");
    assert.equal(r.name, "refunds");
    const { spec } = await loadSpec(dir);
    assert.deepEqual(spec.skills?.map((s) => s.name), ["greeting", "refunds"]);
  });
  await t.step("a duplicate skill", async () => {
    const before = await bytes(dir);
    await assert.rejects(
      addItem(dir, "skill", { name: "refunds", description: "x", instructions: "y" }, CLI),
      kind("bad_input", /already exists/),
    );
    assert.equal(await bytes(dir), before);
  });
  await t.step("tools, validators, guardrails and hooks are frozen over HTTP", async () => {
    for (const k of ["tool", "validator", "guardrail", "hook"]) {
      await assert.rejects(addItem(dir, k, { builtin: "x" }, HTTP), kind("forbidden"), k);
    }
  });
  await t.step("locally every kind can be added", async () => {
    await addItem(dir, "tool", { builtin: "list_files" }, CLI);
    await addItem(dir, "validator", { builtin: "max_length", max: 500 }, CLI);
    await addItem(dir, "guardrail", { builtin: "max_tool_calls", max: 5 }, CLI);
    await addItem(dir, "hook", { code: "hooks/log.ts#log", on: "run_end" }, CLI);
    const { spec } = await loadSpec(dir);
    assert.equal(spec.tools?.length, 2);
    assert.equal(spec.verify?.validators?.length, 2);
    assert.equal(spec.guardrails?.length, 1);
    assert.equal(spec.hooks?.length, 1);
  });
  await t.step("bad items", async () => {
    await assert.rejects(
      addItem(dir, "widget", {}, CLI),
      kind("bad_input", /Unknown kind "widget"/),
    );
    await assert.rejects(addItem(dir, "skill", [], CLI), kind("bad_input", /expected a map/));
    await assert.rejects(
      addItem(dir, "skill", { name: "x" }, CLI),
      kind("bad_input", /Missing required field/),
    );
    await assert.rejects(
      addItem(dir, "tool", { builtin: "nope" }, CLI),
      kind("bad_input", /Unknown builtin "nope"/),
    );
  });
});

Deno.test("removeItem() removes by path and by kind and name", async (t) => {
  await using _home = await tempHome();
  await using tmp = await tempDir();
  const { dir } = await initHarness(`${tmp.path}/bot`);
  await t.step("by dotted path", async () => {
    const r = await removeItem(dir, { path: "limits.max_cost_usd" }, CLI);
    assert.equal(r.removed, "limits.max_cost_usd");
    assert.equal((await loadSpec(dir)).spec.limits?.max_cost_usd, undefined);
  });
  await t.step("by kind and name", async () => {
    await removeItem(dir, { kind: "skill", name: "greeting" }, CLI);
    assert.deepEqual((await loadSpec(dir)).spec.skills, []);
    await removeItem(dir, { kind: "validator", name: "non_empty" }, CLI);
    assert.deepEqual((await loadSpec(dir)).spec.verify?.validators, []);
  });
  await t.step("refusals leave the file byte-identical", async () => {
    const before = await bytes(dir);
    await assert.rejects(
      removeItem(dir, { path: "id" }, CLI),
      kind("bad_input", /Missing required field "id"/),
    );
    await assert.rejects(
      removeItem(dir, { path: "limits.max_cost_usd" }, CLI),
      kind("bad_input", /nothing is set/),
    );
    await assert.rejects(removeItem(dir, { path: "model" }, HTTP), kind("forbidden"));
    await assert.rejects(
      removeItem(dir, { kind: "tool", name: "file_read" }, HTTP),
      kind("forbidden"),
    );
    await assert.rejects(
      removeItem(dir, { kind: "gadget", name: "x" }, CLI),
      kind("bad_input", /Unknown kind/),
    );
    assert.equal(await bytes(dir), before);
  });
});

Deno.test("initHarness() creates a valid harness and refuses to overwrite one", async (t) => {
  await using _home = await tempHome();
  await using tmp = await tempDir();
  await t.step("default template", async () => {
    const r = await initHarness(`${tmp.path}/My Bot`);
    assert.equal(r.id, "my-bot");
    for (const f of r.files) await Deno.stat(`${r.dir}/${f}`);
    assert.match(await Deno.readTextFile(`${r.dir}/.gitignore`), /^\.framework\/$/m);
    assert.match(await Deno.readTextFile(`${r.dir}/.gitignore`), /^\.env\*$/m);
    const { spec } = await loadSpec(r.dir);
    assert.equal(spec.model.provider, "scripted");
    assert.match(await bytes(r.dir), /# To talk to a real model/);
  });
  await t.step("existing harness.yaml", async () => {
    await assert.rejects(
      initHarness(`${tmp.path}/My Bot`),
      kind("bad_input", /already holds a harness.yaml/),
    );
  });
  await t.step("ids", async () => {
    await assert.rejects(initHarness(`${tmp.path}/___`), kind("bad_input", /choose one with --id/));
    const r = await initHarness(`${tmp.path}/x`, { id: "custom-id", name: "Custom" });
    assert.equal((await loadSpec(r.dir)).spec.name, "Custom");
    await assert.rejects(
      initHarness(`${tmp.path}/y`, { template: "nope" }),
      kind("bad_input", /Unknown template/),
    );
    await assert.rejects(Deno.stat(`${tmp.path}/y`), Deno.errors.NotFound);
  });
});

Deno.test("initHarness() removes what it wrote when creation fails", async (t) => {
  await using _home = await tempHome();
  await using tmp = await tempDir();
  await t.step("a file in the way inside an existing folder", async () => {
    await writeFiles(tmp.path, {
      "existing/workspace": "a file, not a folder",
      "existing/keep.txt": "mine",
    });
    await assert.rejects(initHarness(`${tmp.path}/existing`));
    const left = [];
    for await (const e of Deno.readDir(`${tmp.path}/existing`)) left.push(e.name);
    assert.deepEqual(left.sort(), ["keep.txt", "workspace"]);
  });
  await t.step("a state folder that cannot be created", async () => {
    // `.framework` cannot be created because a file holds its name.
    await Deno.mkdir(`${tmp.path}/parent/new`, { recursive: true });
    await Deno.writeTextFile(`${tmp.path}/parent/new/.framework`, "not a folder");
    await assert.rejects(initHarness(`${tmp.path}/parent/new`));
    assert.equal(await Deno.readTextFile(`${tmp.path}/parent/new/.framework`), "not a folder");
    await assert.rejects(Deno.stat(`${tmp.path}/parent/new/harness.yaml`), Deno.errors.NotFound);
    await assert.rejects(Deno.stat(`${tmp.path}/parent/new/workspace`), Deno.errors.NotFound);
  });
});

Deno.test("setField() on a richly commented harness.yaml changes one line and keeps every other byte", async () => {
  await using _home = await tempHome();
  await using tmp = await tempDir();
  const rich = await Deno.readTextFile(new URL("../fixtures/rich_harness.yaml", import.meta.url));
  await writeFiles(tmp.path, { "bot/harness.yaml": rich });
  const dir = `${tmp.path}/bot`;
  await setField(dir, "limits.max_cost_usd", 0.75, CLI);
  await setField(dir, "skills.shipping.description", "Where is my parcel", CLI);
  const after = (await bytes(dir)).split("\n");
  const before = rich.split("\n");
  assert.equal(after.length, before.length);
  const changed = before.flatMap((line, i) => (line === after[i] ? [] : [[line, after[i]]]));
  assert.deepEqual(changed, [
    ["  max_cost_usd: 0.50  # dollars", "  max_cost_usd: 0.75  # dollars"],
    ["    description: Shipping questions", "    description: Where is my parcel"],
  ]);
});
