/**
 * The lazily loaded CLI: the root help's verb table (cli/verbs.ts) matches what each verb's module
 * registers, every verb is in it once, and `help <verb>` and `<verb> --help` load that verb.
 *
 * @module
 */

import assert from "node:assert/strict";
import { buildProgram } from "../../cli.ts";
import { VERB_GROUPS } from "../../cli/verbs.ts";
import { runCli } from "../helpers/cli.ts";
import { tempDir } from "../helpers/temp.ts";

Deno.test("cli/verbs.ts lists exactly the verbs the modules register, with their descriptions", async () => {
  const program = await buildProgram();
  const registered = program.commands.map((c) => [c.name(), c.description()]);
  const listed = VERB_GROUPS.flatMap((g) => g.verbs.map(([n, d]) => [n, d]));
  assert.deepEqual(listed, registered);
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
