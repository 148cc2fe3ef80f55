/**
 * A fork killed midway (a real `kill -9` of a process in the middle of the copy) leaves no folder
 * under the fork's name: the copy is built beside under a hidden temporary name and renamed into
 * place. The name stays free — the next `framework fork` with it succeeds — and that fork sweeps the
 * dead process's leftover copy.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli } from "../helpers/cli.ts";
import { jsonOk } from "../helpers/cli_assert.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir } from "../helpers/temp.ts";

const CHILDREN = new URL("../helpers/children/", import.meta.url).pathname;

Deno.test("a fork killed -9 mid-copy leaves the name free and its leftovers are swept", async () => {
  await using home = await tempDir("fw-fkk-home-");
  await using cwd = await tempDir("fw-fkk-cwd-");
  const cli = (args: string[]) => runCli(args, { home: home.path, cwd: cwd.path });
  const files: Record<string, string> = {};
  for (let i = 0; i < 40; i++) files[`docs/page-${i}.md`] = `page ${i}\n`.repeat(200);
  files["docs/stall-here.md"] = "the copy stops here\n";
  await writeHarness(cwd.path, "base", {
    model: scripted([{ tool_calls: [{ name: "list_files", arguments: {} }] }, { text: "done" }]),
    tools: [{ builtin: "list_files" }],
  }, files);
  const run = jsonOk(await cli(["run", "base", "--input", "go", "--approve", "--json"]));
  const trace = jsonOk(await cli(["trace", run.run_id, "--json"]));
  const at = String(trace.events.find((e: { type: string }) => e.type === "model_call").seq);

  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--quiet",
      `${CHILDREN}fork_stall.ts`,
      run.run_id,
      at,
      "base-fr",
      "stall-here.md",
    ],
    env: { FRAMEWORK_HOME: home.path },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const reader = child.stdout.getReader();
  let out = "";
  while (!out.includes("stalled") && !out.includes("forked")) {
    const { value, done } = await reader.read();
    if (done) break;
    out += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  child.kill("SIGKILL");
  await Promise.all([child.stdout.cancel(), child.stderr.cancel()]);
  const status = await child.status;
  assert.equal(out.trim(), "stalled", "the child was in the middle of the copy");
  assert.equal(status.signal, "SIGKILL");

  const beside = async () =>
    (await Array.fromAsync(Deno.readDir(cwd.path))).map((e) => e.name).sort();
  const left = await beside();
  assert.ok(!left.includes("base-fr"), `no half-made fork under the name: ${left}`);
  assert.equal(left.length, 2, `the killed copy is left beside: ${left}`);

  const fork = jsonOk(await cli(["fork", run.run_id, "--at", at, "--name", "base-fr", "--json"]));
  assert.equal(fork.harness.root_path, join(cwd.path, "base-fr"));
  assert.deepEqual(await beside(), ["base", "base-fr"], "the dead process's copy is swept");
  const copied = await Array.fromAsync(Deno.readDir(join(cwd.path, "base-fr", "docs")));
  assert.equal(copied.length, 41, "the fork is whole");
  const resumed = jsonOk(await cli(["resume", "base-fr", "--json"]));
  assert.equal(resumed.status, "success");
});
