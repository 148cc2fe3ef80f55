/**
 * Forks through the real faces: `framework fork` and `framework resume` as subprocesses, and the
 * workbench's fork, resume (JSON and SSE) and lineage routes against a real server process, with
 * their refusals; no refusal leaves a folder.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli } from "../helpers/cli.ts";
import { jsonError, jsonOk } from "../helpers/cli_assert.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { SseReader } from "../helpers/sse_reader.ts";
import { tempDir } from "../helpers/temp.ts";
import { startWorkbenchProcess, workbenchCall as call } from "../helpers/workbench.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const SPEC = {
  model: scripted([
    { tool_calls: [{ name: "list_files", arguments: {} }] },
    { tool_calls: [{ name: "list_files", arguments: {} }] },
    { text: "done" },
  ]),
  tools: [{ builtin: "list_files" }],
};

function assertError(res: { status: number; json: Json }, status: number, kind: string) {
  assert.equal(res.status, status, JSON.stringify(res.json));
  assert.equal(res.json.error.kind, kind);
}

Deno.test("framework fork and resume: the CLI forks a run and resumes the fork", async () => {
  await using home = await tempDir("fw-fkc-home-");
  await using cwd = await tempDir("fw-fkc-cwd-");
  const cli = (args: string[]) => runCli(args, { home: home.path, cwd: cwd.path });
  await writeHarness(cwd.path, "base", SPEC);
  const run = jsonOk(await cli(["run", "base", "--input", "go", "--approve", "--json"]));
  const trace = jsonOk(await cli(["trace", run.run_id, "--json"]));
  const calls = trace.events.filter((e: Json) => e.type === "model_call").map((e: Json) => e.seq);

  const notCall = jsonError(
    await cli(["fork", run.run_id, "--at", String(calls[1] + 1), "--name", "x", "--json"]),
    "bad_input",
    2,
  );
  assert.match(notCall.message, /not a model call; fork at one of/);
  jsonError(
    await cli(["fork", run.run_id, "--at", "two", "--name", "x", "--json"]),
    "bad_input",
    2,
  );
  jsonError(
    await cli(["fork", run.run_id, "--at", String(calls[1]), "--name", "../x", "--json"]),
    "bad_input",
    2,
  );
  const fork = jsonOk(
    await cli([
      "fork",
      run.run_id,
      "--at",
      String(calls[1]),
      "--name",
      "base-fr",
      "--model",
      "scripted:other",
      "--json",
    ]),
  );
  assert.equal(fork.harness.root_path, await Deno.realPath(join(cwd.path, "base-fr")));
  assert.deepEqual(fork.fork, { parent_run_id: run.run_id, at: calls[1], reentry_seq: calls[1] });
  jsonError(
    await cli(["fork", run.run_id, "--at", String(calls[1]), "--name", "base-fr", "--json"]),
    "conflict",
    2,
  );
  // The parent was approved when it ran: its fork, a byte copy, is trusted too.
  const resumed = jsonOk(await cli(["resume", "base-fr", "--json"]));
  assert.equal(resumed.status, "success");
  assert.equal(resumed.parent_run_id, run.run_id);
  const verified = jsonOk(await cli(["trace", resumed.run_id, "--verify", "--json"]));
  assert.equal(verified.integrity.ok, true, JSON.stringify(verified));
  const again = jsonOk(await cli(["trace", resumed.run_id, "--json"]));
  assert.equal(again.events[0].type, "fork_resumed");
  const notFork = jsonError(await cli(["resume", "base", "--approve", "--json"]), "bad_input", 2);
  assert.match(notFork.message, /is not a fork/);
  const folders = (await Array.fromAsync(Deno.readDir(cwd.path))).map((e) => e.name).sort();
  assert.deepEqual(folders, ["base", "base-fr"]);
});

Deno.test("workbench forks: fork (201), resume (202 and SSE), lineage, refusals", async () => {
  await using home = await tempDir("fw-fkw-home-");
  await using cwd = await tempDir("fw-fkw-cwd-");
  const harnesses = join(cwd.path, "harnesses");
  await writeHarness(harnesses, "base", SPEC);
  await using wb = await startWorkbenchProcess({ home: home.path, cwd: cwd.path });
  const run = (await call(wb, "POST", "/api/harnesses/base/runs", { input: "go" })).json.data;
  const view = (await call(wb, "GET", `/api/runs/${run.run_id}`)).json.data;
  const at = view.events.filter((e: Json) => e.type === "model_call")[1].seq;
  const fork = (body: unknown, id = run.run_id) => call(wb, "POST", `/api/runs/${id}/fork`, body);

  assertError(await fork({ at: at + 1, name: "x" }), 400, "bad_input");
  assertError(await fork({ at, name: "../x" }), 400, "bad_input");
  assertError(await fork({ at, name: "x", path: "/tmp/x" }), 400, "bad_input");
  assertError(await fork({ at, name: "x" }, "run_01ZZZZZZZZZZZZZZZZZZZZZZZZ"), 404, "not_found");
  assertError(await fork({ at, name: "base" }), 409, "conflict");
  const suggested = await call(wb, "GET", `/api/runs/${run.run_id}/fork-name`);
  assert.equal(suggested.json.data.name, "base-fork");

  const made = await fork({ at, name: "base-fork" });
  assert.equal(made.status, 201, JSON.stringify(made.json));
  assert.deepEqual(made.json.data.harness, {
    id: "base-fork",
    name: "base-fork",
    root_path: await Deno.realPath(join(harnesses, "base-fork")),
    is_fork: true,
    parent_id: "base",
  });
  assertError(await fork({ at, name: "base-fork" }), 409, "conflict");
  const catalog = (await call(wb, "GET", "/api/harnesses")).json.data.harnesses;
  const base = catalog.find((h: Json) => h.id === "base");
  assert.deepEqual(base.children.map((c: Json) => [c.id, c.is_fork, c.parent_id]), [
    ["base-fork", true, "base"],
  ]);

  const accepted = await call(wb, "POST", "/api/harnesses/base-fork/resume", {});
  assert.equal(accepted.status, 202, JSON.stringify(accepted.json));
  const firstResume: string = accepted.json.data.run_id;
  const res = await fetch(`${wb.url}/api/harnesses/base-fork/resume?stream=true`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: "{}",
  });
  const frames = await new SseReader(res).rest();
  assert.equal(frames[0]!.event, "run_accepted");
  assert.equal(frames[1]!.data.type, "fork_resumed");
  assert.equal(frames.at(-1)!.event, "run_result");
  assert.equal(frames.at(-1)!.data.status, "success");
  const secondResume: string = frames[0]!.data.run_id;
  assertError(await call(wb, "POST", "/api/harnesses/base/resume", {}), 400, "bad_input");

  for (let i = 0; i < 50; i++) {
    if (!(await call(wb, "GET", `/api/runs/${firstResume}`)).json.data.live) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const lineage = (await call(wb, "GET", `/api/runs/${run.run_id}/lineage`)).json.data;
  assert.deepEqual(lineage, {
    parent: null,
    children: [
      { kind: "fork", harness_id: "base-fork", run_id: firstResume, reentry_seq: at },
      { kind: "fork", harness_id: "base-fork", run_id: secondResume, reentry_seq: at },
    ],
  });
  const child = (await call(wb, "GET", `/api/runs/${secondResume}/lineage`)).json.data;
  assert.deepEqual(child.parent, { run_id: run.run_id, harness_id: "base", kind: "fork" });
  const folders = (await Array.fromAsync(Deno.readDir(harnesses))).map((e) => e.name).sort();
  assert.deepEqual(folders, ["base", "base-fork"]);
});
