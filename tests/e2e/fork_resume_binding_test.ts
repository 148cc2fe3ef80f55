/**
 * A resume replays only its own parent's journal. The `fork` block of a fork's harness.yaml is a
 * file anyone with the folder can edit; the hive decides instead: the run it names must be a run of
 * the parent it names, and that parent must be the fork's parent in the catalog. The attack: copy
 * a real fork block of another harness (its run id, re-entry seq and correct head) into a fork,
 * naming either the fork's own parent or the other harness as the parent, and resume — the other
 * harness's conversation would be replayed into the fork. Tried through a real workbench process
 * (also after a restart, which registers the edited folder again) and through `framework resume`.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { parse, stringify } from "yaml";
import { runCli } from "../helpers/cli.ts";
import { jsonError, jsonOk } from "../helpers/cli_assert.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir } from "../helpers/temp.ts";
import {
  type RunningWorkbenchProcess,
  startWorkbenchProcess,
  workbenchCall as call,
} from "../helpers/workbench.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const SPEC = (answer: string) => ({
  model: scripted([
    { tool_calls: [{ name: "list_files", arguments: {} }] },
    { text: answer },
  ]),
  tools: [{ builtin: "list_files" }],
});

function assertError(res: { status: number; json: Json }, status: number, kind: string) {
  assert.equal(res.status, status, JSON.stringify(res.json));
  assert.equal(res.json.ok, false);
  assert.equal(res.json.error.kind, kind);
}

/** Runs a harness through the workbench and forks the run at its second model call. */
async function runAndFork(wb: RunningWorkbenchProcess, id: string, input: string, name: string) {
  const run = (await call(wb, "POST", `/api/harnesses/${id}/runs`, { input })).json.data;
  const view = (await call(wb, "GET", `/api/runs/${run.run_id}`)).json.data;
  const at = view.events.filter((e: Json) => e.type === "model_call")[1].seq;
  const fork = await call(wb, "POST", `/api/runs/${run.run_id}/fork`, { at, name });
  assert.equal(fork.status, 201, JSON.stringify(fork.json));
  return run.run_id as string;
}

Deno.test("fork resume: a forged fork block cannot replay another harness's run", async () => {
  await using home = await tempDir("fw-frb-home-");
  await using cwd = await tempDir("fw-frb-cwd-");
  const harnesses = join(cwd.path, "harnesses");
  await writeHarness(harnesses, "alpha", SPEC("alpha done"));
  await writeHarness(harnesses, "bravo", SPEC("bravo done"));
  const forkYaml = join(harnesses, "alpha-fork", "harness.yaml");
  const start = () => startWorkbenchProcess({ home: home.path, cwd: cwd.path });
  let wb = await start();
  try {
    const alphaRun = await runAndFork(wb, "alpha", "alpha's question", "alpha-fork");
    const bravoRun = await runAndFork(wb, "bravo", "bravo-confidential question", "bravo-fork");
    const original = await Deno.readTextFile(forkYaml);
    // A real block, with bravo's run id, re-entry seq and correct head.
    const bravoBlock = parse(await Deno.readTextFile(join(harnesses, "bravo-fork/harness.yaml")))
      .fork;
    assert.equal(bravoBlock.run_id, bravoRun);
    const forge = async (fork: Json) => {
      const spec = parse(original);
      await Deno.writeTextFile(forkYaml, stringify({ ...spec, fork }));
    };
    const resume = () => call(wb, "POST", "/api/harnesses/alpha-fork/resume", {});
    const noReplayOfBravo = async () => {
      const lineage = (await call(wb, "GET", `/api/runs/${bravoRun}/lineage`)).json.data;
      assert.deepEqual(lineage.children, [], "nothing was resumed from bravo's run");
      const runs = (await call(wb, "GET", "/api/harnesses/alpha-fork/runs")).json.data.runs;
      assert.deepEqual(runs, [], "the fork made no run");
    };

    // Its own parent's name, another harness's run: not a run of that parent (404).
    await forge({ ...bravoBlock, parent: "alpha" });
    const notParents = await resume();
    assertError(notParents, 404, "not_found");
    assert.match(
      notParents.json.error.message,
      /is not a run of "alpha", the parent of "alpha-fork"/,
    );
    assert.match(notParents.json.error.message, /framework fork/);
    await noReplayOfBravo();

    // Another parent's name: the catalog records the fork under alpha (400), also after a restart
    // registers the edited folder again.
    await forge(bravoBlock);
    for (const restart of [false, true]) {
      if (restart) {
        await wb.stop();
        wb = await start();
      }
      const otherParent = await resume();
      assertError(otherParent, 400, "bad_input");
      assert.match(
        otherParent.json.error.message,
        /names the parent "bravo", but the catalog records "alpha-fork" as a fork of "alpha"/,
      );
      await noReplayOfBravo();
    }
    const catalog = (await call(wb, "GET", "/api/harnesses")).json.data.harnesses;
    const alpha = catalog.find((h: Json) => h.id === "alpha");
    assert.deepEqual(alpha.children.map((c: Json) => [c.id, c.parent_id]), [
      ["alpha-fork", "alpha"],
    ]);

    // The CLI asks the hive the same questions.
    await forge({ ...bravoBlock, parent: "alpha" });
    const cli = jsonError(
      await runCli(["resume", join(harnesses, "alpha-fork"), "--approve", "--json"], {
        home: home.path,
        cwd: cwd.path,
      }),
      "not_found",
      2,
    );
    assert.match(cli.message, /is not a run of "alpha"/);
    await noReplayOfBravo();

    // The block as `fork` wrote it resumes from alpha's run.
    await Deno.writeTextFile(forkYaml, original);
    const resumed = jsonOk(
      await runCli(["resume", join(harnesses, "alpha-fork"), "--approve", "--json"], {
        home: home.path,
        cwd: cwd.path,
      }),
    );
    assert.equal(resumed.status, "success");
    assert.equal(resumed.parent_run_id, alphaRun);
    assert.equal(resumed.output, "alpha done");
  } finally {
    await wb.stop();
  }
});
