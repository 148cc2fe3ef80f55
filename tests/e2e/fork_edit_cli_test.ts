/**
 * `framework fork --edit-…` and `framework resume` as subprocesses: the edit options, their
 * refusals (no folder left), the fork block they write and the `fork_edited` event of the resumed
 * run's journal.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli } from "../helpers/cli.ts";
import { jsonError, jsonOk } from "../helpers/cli_assert.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir } from "../helpers/temp.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

Deno.test("framework fork --edit-tool-result: the fork's resumes are given the replacement", async () => {
  await using home = await tempDir("fw-fec-home-");
  await using cwd = await tempDir("fw-fec-cwd-");
  const cli = (args: string[]) => runCli(args, { home: home.path, cwd: cwd.path });
  await writeHarness(cwd.path, "base", {
    model: scripted([
      { tool_calls: [{ id: "c1", name: "list_files", arguments: {} }] },
      { text: "done" },
    ]),
    tools: [{ builtin: "list_files" }],
  });
  const run = jsonOk(await cli(["run", "base", "--input", "go", "--approve", "--json"]));
  const trace = jsonOk(await cli(["trace", run.run_id, "--json"]));
  const [first, second] = trace.events.filter((e: Json) => e.type === "model_call")
    .map((e: Json) => String(e.seq));
  const fork = (name: string, at: string, ...edit: string[]) =>
    cli(["fork", run.run_id, "--at", at, "--name", name, ...edit, "--json"]);
  const entries = async () => (await Array.fromAsync(Deno.readDir(cwd.path))).map((e) => e.name);

  const both = jsonError(
    await fork("x", second, "--edit-user-message", "a", "--edit-tool-result", "b"),
    "bad_input",
    2,
  );
  assert.match(both.message, /one of --edit-user-message and --edit-tool-result/);
  jsonError(await fork("x", second, "--call-id", "c1"), "bad_input", 2);
  const noUser = jsonError(await fork("x", second, "--edit-user-message", "a"), "bad_input", 2);
  assert.match(noUser.message, /was given no new user message/);
  jsonError(await fork("x", first, "--edit-tool-result", "a"), "bad_input", 2);
  assert.deepEqual((await entries()).sort(), ["base"]);

  const made = jsonOk(await fork("empty", second, "--edit-tool-result", "nothing here"));
  assert.equal(made.fork.edit.kind, "tool_result");
  assert.equal(made.fork.edit.call_id, "c1");
  assert.equal(made.fork.edit.replacement, "nothing here");
  assert.match(made.fork.edit.original, /harness\.yaml/);
  const yaml = await Deno.readTextFile(join(cwd.path, "empty/harness.yaml"));
  assert.match(yaml, /edit:\n\s+kind: tool_result\n\s+replacement: nothing here\n\s+call_id: c1\n/);

  const human = await cli([
    "fork",
    run.run_id,
    "--at",
    first,
    "--name",
    "hello",
    "--edit-user-message",
    "hello",
  ]);
  assert.equal(human.code, 0, human.stderr);
  assert.match(human.stdout, /Every resume gives the model the replaced user message\./);

  const resumed = jsonOk(await cli(["resume", "empty", "--approve", "--json"]));
  assert.equal(resumed.status, "success");
  const events = jsonOk(await cli(["trace", resumed.run_id, "--json"])).events as Json[];
  const at = events.findIndex((e) => e.type === "fork_edited");
  assert.equal(events[at - 1].type, "replayed");
  assert.equal(events[at + 1].type, "run_started");
  assert.equal(events[at].payload.replacement, "nothing here");
  const call = events.find((e) => e.type === "model_call");
  assert.equal(
    call.payload.append.find((m: Json) => m.tool_call_id === "c1").content,
    "nothing here",
  );
});
