/**
 * The lazily loaded CLI: the root help's verb table (cli/verbs.ts) matches what each verb's module
 * registers, every verb is in it once, and `help <verb>` and `<verb> --help` load that verb.
 *
 * @module
 */

import assert from "node:assert/strict";
import { buildProgram, programFor } from "../../cli/main.ts";
import { rootHelp } from "../../cli/root_help.ts";
import { VERB_GROUPS } from "../../cli/verbs.ts";
import { runCli } from "../helpers/cli.ts";
import { tempDir } from "../helpers/temp.ts";

Deno.test("cli/verbs.ts lists exactly the verbs the modules register, with their descriptions", async () => {
  const program = await buildProgram();
  const registered = program.commands.map((c) => [c.name(), c.description()]);
  const listed = VERB_GROUPS.flatMap((g) => g.verbs.map(([n, d]) => [n, d]));
  assert.deepEqual(listed, registered);
});

Deno.test("the root help written without commander is the one commander prints", async () => {
  const program = await programFor(["--help"]);
  assert.equal(rootHelp(), program.helpInformation());
});

Deno.test("the entry point names only the root help's table and the output helpers (Deno loads every named one first)", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", new URL("../../cli.ts", import.meta.url).pathname],
  }).output();
  assert.equal(out.code, 0);
  const graph = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    modules: { specifier: string }[];
  };
  const root = new URL("../../", import.meta.url).href;
  const names = graph.modules.map((m) => m.specifier.replace(root, "")).sort();
  assert.deepEqual(names, [
    "cli.ts",
    "cli/output.ts",
    "cli/root_help.ts",
    "cli/verb_table.ts",
    "lib/background.ts",
    "lib/envelope.ts",
    "lib/errors.ts",
    "lib/version.ts",
  ]);
});

Deno.test("framework, --help, -h and --version (with and without --json) answer without a verb", async () => {
  await using home = await tempDir("fw-verbs-");
  const opts = { home: home.path, cwd: home.path };
  for (const flag of ["--help", "-h"]) {
    const r = await runCli([flag], opts);
    assert.equal(r.code, 0);
    assert.equal(r.stdout, rootHelp());
  }
  const bare = await runCli([], opts);
  assert.equal(bare.code, 2, "a bare `framework` is a usage error after its help");
  assert.equal(bare.stdout, rootHelp());
  const help = await runCli(["--help", "--json"], opts);
  assert.deepEqual(JSON.parse(help.stdout), { ok: true, data: { help: rootHelp() } });
  const version = await runCli(["--version", "--json"], opts);
  assert.equal(version.code, 0);
  assert.match(JSON.parse(version.stdout).data.version, /^\d+\.\d+\.\d+/);
  assert.match((await runCli(["--version"], opts)).stdout, /^\d+\.\d+\.\d+\n$/);
  // A bare `--json` is not a help request: commander answers it (a usage error, in JSON).
  const json = await runCli(["--json"], opts);
  assert.equal(json.code, 2);
  assert.equal(JSON.parse(json.stdout).ok, false);
});

Deno.test("the root help lists every verb; a verb's help shows its options", async () => {
  await using home = await tempDir("fw-verbs-");
  const root = await runCli(["--help"], { home: home.path, cwd: home.path });
  assert.equal(root.code, 0);
  for (const g of VERB_GROUPS) {
    for (const [name] of g.verbs) assert.match(root.stdout, new RegExp(`\\b${name}\\b`));
  }
  const verb = await runCli(["eval", "--help"], { home: home.path, cwd: home.path });
  assert.match(verb.stdout, /--count-as-live/);
  const viaHelp = await runCli(["help", "fork"], { home: home.path, cwd: home.path });
  assert.match(viaHelp.stdout, /--at <seq>/);
  const unknown = await runCli(["frobnicate", "--json"], { home: home.path, cwd: home.path });
  assert.equal(unknown.code, 2);
  assert.match(unknown.stdout, /unknown command 'frobnicate'/);
});
