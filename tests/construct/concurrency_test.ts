import assert from "node:assert/strict";
import { readConstructionLog } from "../../lib/construct/construction_log.ts";
import { initHarness } from "../../lib/construct/init_harness.ts";
import { setField } from "../../lib/construct/set_field.ts";
import { openHive } from "../../lib/hive/open.ts";
import { listSpecVersions } from "../../lib/hive/spec_versions.ts";
import { loadSpec, parseSpecText } from "../../lib/harness_spec/load.ts";
import { tempDir, tempHome } from "../helpers/temp.ts";
import { byId } from "../helpers/hive.ts";

const CHILDREN = new URL("../helpers/children/", import.meta.url).pathname;

function child(script: string, args: string[], home: string, stdout: "piped" | "null" = "null") {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", `${CHILDREN}${script}`, ...args],
    env: { FRAMEWORK_HOME: home },
    stdout,
    stderr: "piped",
  }).spawn();
}

Deno.test("setField() from two processes at once: all 100 edits land and the file stays valid", async () => {
  await using home = await tempHome();
  await using tmp = await tempDir();
  const { dir } = await initHarness(`${tmp.path}/bot`);
  const a = child("set_many.ts", [dir, "a", "50"], home.path);
  const b = child("set_many.ts", [dir, "b", "50"], home.path);
  const [ra, rb] = await Promise.all([a.output(), b.output()]);
  assert.equal(ra.code, 0, new TextDecoder().decode(ra.stderr));
  assert.equal(rb.code, 0, new TextDecoder().decode(rb.stderr));
  const { spec } = await loadSpec(dir);
  const ext = spec.extensions as Record<string, number>;
  for (let i = 0; i < 50; i++) {
    assert.equal(ext[`a_${i}`], i);
    assert.equal(ext[`b_${i}`], i);
  }
  assert.equal(Object.keys(ext).length, 100);
  const sets = (await readConstructionLog(dir)).filter((e) => e.op === "set");
  assert.equal(sets.length, 100);
  assert.equal(listSpecVersions(openHive(), byId("bot"), 1000).length, 101);
});

Deno.test("setField() called 50 times at once in one process: every edit lands", async () => {
  await using _home = await tempHome();
  await using tmp = await tempDir();
  const { dir } = await initHarness(`${tmp.path}/bot`);
  await Promise.all(
    Array.from(
      { length: 50 },
      (_, i) => setField(dir, `extensions.k${i}`, { n: i }, { actor: "cli", policy: "local" }),
    ),
  );
  const ext = (await loadSpec(dir)).spec.extensions as Record<string, { n: number }>;
  assert.equal(Object.keys(ext).length, 50);
  for (let i = 0; i < 50; i++) assert.deepEqual(ext[`k${i}`], { n: i });
});

Deno.test("a writer killed mid-write leaves the old or the new file, never a mix", async () => {
  await using home = await tempHome();
  await using tmp = await tempDir();
  const { dir } = await initHarness(`${tmp.path}/bot`);
  for (let round = 0; round < 6; round++) {
    const proc = child("write_forever.ts", [dir], home.path, "piped");
    const reader = proc.stdout.getReader();
    const first = await reader.read();
    assert.match(new TextDecoder().decode(first.value), /ready/);
    await new Promise((r) => setTimeout(r, 20 + Math.random() * 200));
    proc.kill("SIGKILL");
    reader.releaseLock();
    await proc.stdout.cancel();
    await proc.stderr.cancel();
    await proc.status;
    const text = await Deno.readTextFile(`${dir}/harness.yaml`);
    const parsed = parseSpecText(text);
    assert.ok(parsed.spec, `round ${round}: the file is a valid spec`);
    const instructions = parsed.spec.instructions!;
    const lines = instructions.trimEnd().split("\n");
    assert.equal(lines.length, 5000, `round ${round}: a whole value`);
    assert.ok(lines.every((l) => l === lines[0]), `round ${round}: one value, not a mix`);
  }
  // The next edit clears temporary files a killed writer left behind.
  await setField(dir, "limits.max_turns", 5, { actor: "cli", policy: "local" });
  for await (const e of Deno.readDir(dir)) {
    assert.ok(!e.name.includes(".tmp-"), `left over: ${e.name}`);
  }
});
