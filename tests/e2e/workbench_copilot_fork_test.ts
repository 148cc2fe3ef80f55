/**
 * The copilot forks and resumes through the same library functions and rules as the page: a fork at
 * a model call of a run, nested under its parent, resumed from the journal; a name that is a path is
 * refused as a tool error and leaves no folder.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli } from "../helpers/cli.ts";
import { jsonOk } from "../helpers/cli_assert.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { SseReader } from "../helpers/sse_reader.ts";
import { tempDir } from "../helpers/temp.ts";
import { startWorkbenchProcess, workbenchCall as call } from "../helpers/workbench.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

Deno.test("workbench copilot: fork_run and resume_fork", async () => {
  await using home = await tempDir("fw-wcf-home-");
  await using cwd = await tempDir("fw-wcf-cwd-");
  const harnesses = join(cwd.path, "harnesses");
  await writeHarness(harnesses, "base", {
    model: scripted([
      { tool_calls: [{ name: "list_files", arguments: {} }] },
      { text: "base done" },
    ]),
    tools: [{ builtin: "list_files" }],
  });
  const cli = (args: string[]) => runCli(args, { home: home.path, cwd: cwd.path });
  const run = jsonOk(await cli(["run", "harnesses/base", "--input", "go", "--approve", "--json"]));
  const trace = jsonOk(await cli(["trace", run.run_id, "--json"]));
  const at = trace.events.filter((e: Json) => e.type === "model_call")[1].seq;
  const step = (match: string, name: string, args: Json, reply: string) => ({
    match,
    replies: [{ tool_calls: [{ name, arguments: args }] }, { text: reply }],
  });
  const script = join(home.path, "copilot.yaml");
  await Deno.writeTextFile(
    script,
    JSON.stringify({
      scenarios: [
        step("BADNAME", "fork_run", { run_id: run.run_id, at, name: "../escape" }, "Refused."),
        step(
          "FORKIT",
          "fork_run",
          { run_id: run.run_id, at, name: "base-copilot", model: "scripted:other" },
          "Forked.",
        ),
        step("RESUMEIT", "resume_fork", {}, "Resumed."),
      ],
    }),
  );
  await using wb = await startWorkbenchProcess({
    home: home.path,
    cwd: cwd.path,
    env: { FRAMEWORK_COPILOT_MODEL: `scripted:${script}` },
  });
  const conv = (await call(wb, "POST", "/api/conversations", {})).json.data.id;
  const turn = async (message: string) => {
    const res = await fetch(`${wb.url}/api/conversations/${conv}/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ message }),
    });
    const frames = await new SseReader(res).rest();
    const stored = frames.find((f) => f.event === "message")!.data;
    return { part: stored.message.parts.find((p: Json) => p.type === "tool"), stored };
  };

  const bad = await turn("BADNAME fork it to a path");
  assert.equal(bad.part.ok, false);
  assert.match(bad.part.result, /expected a slug/);

  const forked = await turn("FORKIT fork the run at its second call");
  assert.equal(forked.part.ok, true, forked.part.result);
  const fork = JSON.parse(forked.part.result);
  assert.deepEqual(
    [fork.harness.id, fork.harness.is_fork, fork.harness.parent_id, fork.fork.reentry_seq],
    ["base-copilot", true, "base", at],
  );
  assert.equal(forked.stored.selection.harness_id, "base-copilot");

  const resumed = await turn("RESUMEIT resume the fork");
  assert.equal(resumed.part.ok, true, resumed.part.result);
  const result = JSON.parse(resumed.part.result);
  assert.equal(result.status, "success");
  const lineage = (await call(wb, "GET", `/api/runs/${run.run_id}/lineage`)).json.data;
  assert.deepEqual(lineage.children, [
    { kind: "fork", harness_id: "base-copilot", run_id: result.run_id, reentry_seq: at },
  ]);
  const folders = (await Array.fromAsync(Deno.readDir(harnesses))).map((e) => e.name).sort();
  assert.deepEqual(folders, ["base", "base-copilot"]);
  const yaml = await Deno.readTextFile(join(harnesses, "base-copilot", "harness.yaml"));
  assert.match(yaml, /name: other/);
});
