/**
 * A resume replays only its own parent's journal. The `fork` block of a fork's harness.yaml is a
 * file anyone with the folder can edit, or write into another folder; the hive decides instead: a
 * fork's origin (folder, parent, run, seq) is recorded when the fork is made, and a resume replays
 * only what that record says. The attacks: copy a real fork block of another harness (its run id,
 * re-entry seq and correct head) into a fork, naming either the fork's own parent or the other
 * harness as the parent; point a fork's block at another run of its own parent; or give a folder
 * the hive never forked a block naming a harness's run — each time the resume would replay a
 * conversation into a harness that has no claim on it. Tried through a real workbench process (also
 * after a restart, which registers the edited folder again) and through `framework resume`.
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
        /names the parent "bravo", but "alpha-fork" was made a fork of "alpha"/,
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

/** The block `framework fork` would write for a fork of `run` at its second model call. */
async function blockFor(cli: (args: string[]) => Promise<Json>, parent: string, runId: string) {
  const trace = jsonOk(await cli(["trace", runId, "--json"]));
  const at = trace.events.filter((e: Json) => e.type === "model_call")[1].seq;
  const head = trace.events.find((e: Json) => e.seq === at - 1).hash;
  return { parent, run_id: runId, at, head };
}

Deno.test("fork resume: only a fork made here resumes, and only from where it was made", async () => {
  await using home = await tempDir("fw-frb-home-");
  await using cwd = await tempDir("fw-frb-cwd-");
  const harnesses = join(cwd.path, "harnesses");
  const cli = (args: string[]) => runCli(args, { home: home.path, cwd: cwd.path });
  const alphaDir = await writeHarness(harnesses, "alpha", SPEC("alpha done"));
  const first = jsonOk(
    await cli(["run", alphaDir, "--input", "alpha's private question", "--approve", "--json"]),
  );
  const second = jsonOk(
    await cli(["run", alphaDir, "--input", "alpha's second question", "--approve", "--json"]),
  );
  const made = await blockFor(cli, "alpha", first.run_id);
  jsonOk(
    await cli(["fork", first.run_id, "--at", String(made.at), "--name", "alpha-fork", "--json"]),
  );
  const forkYaml = join(harnesses, "alpha-fork", "harness.yaml");
  const original = await Deno.readTextFile(forkYaml);
  assert.deepEqual(parse(original).fork, made);

  // A folder the hive never forked, declaring itself a fork of alpha with a real run and head.
  const intruder = await writeHarness(harnesses, "intruder", {
    ...SPEC("intruder done"),
    fork: made,
  });
  // And the real fork's block pointed at another of alpha's runs, with that run's correct head.
  const otherRun = await blockFor(cli, "alpha", second.run_id);

  const noReplay = async (wb: RunningWorkbenchProcess) => {
    const lineage = (await call(wb, "GET", `/api/runs/${first.run_id}/lineage`)).json.data;
    assert.deepEqual(lineage.children, [], "nothing was resumed from alpha's first run");
    const other = (await call(wb, "GET", `/api/runs/${second.run_id}/lineage`)).json.data;
    assert.deepEqual(other.children, [], "nothing was resumed from alpha's second run");
  };
  await using wb = await startWorkbenchProcess({ home: home.path, cwd: cwd.path });
  // The scan found the intruder: a plain harness at the top of the catalog, not under alpha.
  const catalog = (await call(wb, "GET", "/api/harnesses")).json.data.harnesses;
  const top = catalog.map((h: Json) => [h.id, h.is_fork, h.parent_id]);
  assert.deepEqual(top.find((h: Json) => h[0] === "intruder"), ["intruder", false, null]);
  const alpha = catalog.find((h: Json) => h.id === "alpha");
  assert.deepEqual(alpha.children.map((c: Json) => [c.id, c.is_fork, c.parent_id]), [
    ["alpha-fork", true, "alpha"],
  ]);

  const notMadeHere = await call(wb, "POST", "/api/harnesses/intruder/resume", {});
  assertError(notMadeHere, 400, "bad_input");
  assert.match(notMadeHere.json.error.message, /"intruder" in .* was not made a fork here/);
  assert.match(notMadeHere.json.error.message, /fork the run again/);
  const cliNotMadeHere = jsonError(
    await cli(["resume", intruder, "--approve", "--json"]),
    "bad_input",
    2,
  );
  assert.match(cliNotMadeHere.message, /was not made a fork here/);
  await noReplay(wb);

  await Deno.writeTextFile(forkYaml, stringify({ ...parse(original), fork: otherRun }));
  const elsewhere = await call(wb, "POST", "/api/harnesses/alpha-fork/resume", {});
  assertError(elsewhere, 400, "bad_input");
  assert.match(
    elsewhere.json.error.message,
    new RegExp(
      `names run "${second.run_id}" at seq ${otherRun.at}, but "alpha-fork" was made from run "${first.run_id}" at seq ${made.at}`,
    ),
  );
  await noReplay(wb);

  // The block as `fork` wrote it resumes, from the run it was made from.
  await Deno.writeTextFile(forkYaml, original);
  const resumed = jsonOk(
    await cli(["resume", join(harnesses, "alpha-fork"), "--approve", "--json"]),
  );
  assert.equal(resumed.status, "success");
  assert.equal(resumed.parent_run_id, first.run_id);
  assert.equal(resumed.output, "alpha done");
});
