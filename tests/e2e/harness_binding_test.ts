/**
 * A copied folder that kept the harness id is another harness: its runs, proposals, stats and
 * versions are bound to its own folder. The original's control plane never serves the copy's traces
 * (with their inputs), the catalog's folder does not flip to whichever folder ran last, and the copy is
 * reported (a `validate` warning, a workbench notice), never silently merged.
 *
 * @module
 */

import assert from "node:assert/strict";
import { runCli } from "../helpers/cli.ts";
import { jsonOk } from "../helpers/cli_assert.ts";
import { memberToken, startControlPlane } from "../helpers/control_plane.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir } from "../helpers/temp.ts";
import { startWorkbenchProcess, workbenchCall } from "../helpers/workbench.ts";

/** Copies a folder as a user would (`cp -a`), state folder included. */
async function copy(from: string, to: string): Promise<void> {
  const { code } = await new Deno.Command("cp", { args: ["-a", from, to] }).output();
  assert.equal(code, 0);
}

Deno.test("a copied folder with the same id shares nothing with the original", async (t) => {
  await using home = await tempDir();
  await using root = await tempDir();
  const original = await writeHarness(root.path, "twin", {
    model: scripted([{ text: "ok" }]),
    tools: [{ builtin: "list_files" }],
  });
  const cli = (args: string[]) => runCli(args, { home: home.path });
  const first = jsonOk(
    await cli(["run", original, "--input", "original input", "--json", "--approve"]),
  );
  const copyDir = `${root.path}/twin-copy`;
  await copy(original, copyDir);
  const copied = jsonOk(
    await cli(["run", copyDir, "--input", "the copy's private input", "--json", "--approve"]),
  );
  assert.equal(copied.harness_id, "twin");

  const { token } = await memberToken(original, home.path, "reader", ["read"]);
  await using plane = await startControlPlane(original, {
    home: home.path,
    env: { FRAMEWORK_AUTHORIZED_KEYS: "" },
  });
  const get = async (path: string) => {
    const res = await fetch(plane.url + path, { headers: { authorization: `Bearer ${token}` } });
    return { status: res.status, text: await res.text() };
  };

  await t.step("the original's control plane does not serve the copy's run", async () => {
    const trace = await get(`/trace/${copied.run_id}`);
    assert.equal(trace.status, 404, trace.text);
    assert.ok(!trace.text.includes("private input"));
    const events = await get(`/runs/${copied.run_id}/events`);
    assert.equal(events.status, 404);
    assert.equal((await get(`/trace/${first.run_id}`)).status, 200);
  });

  await t.step("stats count each folder's runs only", async () => {
    const stats = JSON.parse((await get("/stats")).text).data;
    assert.equal(stats.runs.total, 1);
    const copyStats = jsonOk(await cli(["stats", copyDir, "--json"]));
    assert.equal(copyStats.runs.total, 1);
    const copyRuns = jsonOk(await cli(["runs", copyDir, "--json"]));
    assert.deepEqual(copyRuns.runs.map((r: { run_id: string }) => r.run_id), [copied.run_id]);
  });

  await t.step("validate warns on the copy, not on the original", async () => {
    const warned = jsonOk(await cli(["validate", copyDir, "--json"]));
    const issue = warned.issues.find((i: { path: string }) => i.path === "id");
    assert.ok(issue, JSON.stringify(warned.issues));
    assert.equal(issue.severity, "warning");
    assert.match(issue.message, /already has the id "twin"/);
    const clean = jsonOk(await cli(["validate", original, "--json"]));
    assert.equal(clean.issues.filter((i: { path: string }) => i.path === "id").length, 0);
  });

  await t.step("the workbench lists the original and reports the copy", async () => {
    await using cwd = await tempDir();
    await using wb = await startWorkbenchProcess({
      home: home.path,
      cwd: cwd.path,
      args: ["--dir", copyDir, "--dir", original],
    });
    const catalog = await workbenchCall(wb, "GET", "/api/harnesses");
    const twins = catalog.json.data.harnesses.filter((h: { id: string }) => h.id === "twin");
    assert.equal(twins.length, 1);
    assert.equal(twins[0].root_path, original, "the catalog's folder did not flip to the copy");
    assert.deepEqual(catalog.json.data.duplicates, [
      { id: "twin", root_path: copyDir, owner_path: original },
    ]);
    const runs = await workbenchCall(wb, "GET", "/api/harnesses/twin/runs");
    assert.deepEqual(runs.json.data.runs.map((r: { run_id: string }) => r.run_id), [
      first.run_id,
    ]);
  });

  await t.step("a copy that takes its own id is a harness of its own", async () => {
    jsonOk(await cli(["set", copyDir, "id", "twin-two", "--string", "--json"]));
    const warned = jsonOk(await cli(["validate", copyDir, "--json"]));
    assert.equal(warned.issues.filter((i: { path: string }) => i.path === "id").length, 0);
  });
});
