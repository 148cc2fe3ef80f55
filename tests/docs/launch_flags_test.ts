/**
 * The framework runs with one set of `deno` flags wherever it is launched: the `framework` task in
 * deno.json is the source, and the other tasks that start it (demo, workbench, compile), the
 * installed command and the package's Dockerfile carry the same permissions and V8 flags (`--heap-growing-percent` and
 * `--max-semi-space-size` keep a long-running server's heap near what it holds; docs/performance.md).
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { FRAMEWORK_RUN_FLAGS } from "../../lib/launch_flags.ts";
import { createPackage } from "../../lib/package/package.ts";
import { untarGz } from "../../lib/package/tar.ts";
import { frameworkTaskFlags, shimScript } from "../../scripts/install.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir } from "../helpers/temp.ts";

const ROOT = new URL("../../", import.meta.url);
const config = await Deno.readTextFile(new URL("deno.json", ROOT));
const tasks = (JSON.parse(config) as { tasks: Record<string, string> }).tasks;

Deno.test("the framework task's flags are the install shim's, with the V8 memory flag", () => {
  const flags = frameworkTaskFlags(config);
  assert.match(flags, /--v8-flags=--heap-growing-percent=25,--max-semi-space-size=8/);
  assert.match(flags, /--allow-read .*--unstable-worker-options/);
  assert.ok(flags.endsWith(" --quiet"));
  const shim = shimScript("/opt/fw", "/opt/deno/deno", "2.9.6", flags);
  assert.equal(shim.split(flags).length - 1, 1, "one exec line runs whichever Deno it found");
  assert.match(shim, new RegExp(`exec "\\$DENO" run ${flags} `));
});

Deno.test("every task that starts the framework carries the framework task's flags", () => {
  const own = frameworkTaskFlags(config).replace(/ --quiet$/, "");
  for (const name of ["demo", "workbench", "compile"]) {
    assert.ok(tasks[name]!.includes(own), `task ${name} runs with: ${own}`);
  }
});

Deno.test("the code's list of the flags (lib/launch_flags.ts) is the framework task's", () => {
  assert.equal(FRAMEWORK_RUN_FLAGS.join(" "), frameworkTaskFlags(config).replace(/ --quiet$/, ""));
});

Deno.test("the package's Dockerfile runs the control plane with the framework task's flags, not -A", async () => {
  await using tmp = await tempDir();
  const dir = await writeHarness(tmp.path, "boxed", { model: scripted([{ text: "ok" }]) });
  const { path } = await createPackage(dir, join(tmp.path, "boxed.tar.gz"));
  const files = await untarGz(await Deno.readFile(path));
  const text = new TextDecoder().decode(files.find((f) => f.path === "Dockerfile")!.bytes);
  const cmd = text.split("\n").filter((l) => l.startsWith("CMD "));
  assert.equal(cmd.length, 1, text);
  const argv = JSON.parse(cmd[0]!.slice("CMD ".length)) as string[];
  const flags = frameworkTaskFlags(config).replace(/ --quiet$/, "").split(" ");
  assert.deepEqual(argv, [
    "deno",
    "run",
    ...flags,
    "/opt/framework/cli.ts",
    "control-plane",
    "/srv/harness",
    "--host",
    "0.0.0.0",
    "--port",
    "8420",
    "--approve",
  ]);
  assert.ok(!/(^|\s|")(-A|--allow-all)(\s|"|$)/.test(text), "no flag grants every permission");
});

Deno.test("frameworkTaskFlags refuses a framework task it cannot read", () => {
  assert.throws(
    () => frameworkTaskFlags(JSON.stringify({ tasks: { framework: "node cli.js" } })),
    /not "deno run <flags> cli.ts"/,
  );
});

Deno.test("the flags start the framework (V8 accepts them)", async () => {
  const flags = frameworkTaskFlags(config).split(" ");
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...flags, new URL("cli.ts", ROOT).pathname, "--version"],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  assert.match(new TextDecoder().decode(out.stdout), /^\d+\.\d+\.\d+\n$/);
});
