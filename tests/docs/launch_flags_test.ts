/**
 * The framework runs with one set of `deno` flags wherever it is launched: the `framework` task in
 * deno.json is the source, and the other tasks that start it (demo, workbench, compile) and the
 * installed command carry the same permissions and V8 flags (`--heap-growing-percent` and
 * `--max-semi-space-size` keep a long-running server's heap near what it holds; docs/performance.md).
 *
 * @module
 */

import assert from "node:assert/strict";
import { frameworkTaskFlags, shimScript } from "../../scripts/install.ts";

const ROOT = new URL("../../", import.meta.url);
const config = await Deno.readTextFile(new URL("deno.json", ROOT));
const tasks = (JSON.parse(config) as { tasks: Record<string, string> }).tasks;

Deno.test("the framework task's flags are the install shim's, with the V8 memory flag", () => {
  const flags = frameworkTaskFlags(config);
  assert.match(flags, /--v8-flags=--heap-growing-percent=25,--max-semi-space-size=2/);
  assert.match(flags, /--allow-read .*--unstable-worker-options/);
  assert.ok(flags.endsWith(" --quiet"));
  const shim = shimScript("/opt/fw", "2.9.6", flags);
  assert.equal(shim.split(flags).length - 1, 2, "both the deno and the npx line use them");
});

Deno.test("every task that starts the framework carries the framework task's flags", () => {
  const own = frameworkTaskFlags(config).replace(/ --quiet$/, "");
  for (const name of ["demo", "workbench", "compile"]) {
    assert.ok(tasks[name]!.includes(own), `task ${name} runs with: ${own}`);
  }
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
