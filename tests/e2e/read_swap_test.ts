/**
 * The file checked is the file read. The builtin `file_read` and a run's `input_file` check a path
 * and then read it; a name swapped between the two for a symbolic link to `.env`, or for a hard link
 * of it, must not hand over `.env`'s bytes. A child process swaps `notes.txt` as fast as it can
 * (ordinary file, symlink to `.env`, hard link of `.env`, each put in place by an atomic rename)
 * while a real `framework run` reads it two hundred times through `file_read`, and while a real
 * workbench starts runs with `input_file: notes.txt`. No tool result, journal or answer may hold the
 * secret: each read gets the ordinary file or is refused. (Before, reads by name leaked `.env` in
 * every attempt of this test.)
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli } from "../helpers/cli.ts";
import { jsonOk } from "../helpers/cli_assert.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir } from "../helpers/temp.ts";
import { startWorkbenchProcess, workbenchCall as call } from "../helpers/workbench.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const SECRET = "sk-swapped-name-4410";
const SWAPPER = new URL("../helpers/children/swap_names.ts", import.meta.url).pathname;

/** Starts the swapper on `<dir>/notes.txt` and waits until it swaps; dispose it to stop it. */
async function swapping(dir: string) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", SWAPPER, dir, "notes.txt", ".env"],
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.getReader();
  const first = await reader.read();
  assert.match(new TextDecoder().decode(first.value), /swapping/);
  reader.releaseLock();
  const drained = child.stdout.pipeTo(new WritableStream()).catch(() => {});
  return {
    async [Symbol.asyncDispose]() {
      try {
        child.kill("SIGKILL");
      } catch {
        // gone
      }
      await child.status;
      await drained;
    },
  };
}

/** Every journal of a harness folder's default trace folder, as text. */
async function journals(dir: string): Promise<string[]> {
  const out: string[] = [];
  try {
    for await (const e of Deno.readDir(join(dir, ".framework/traces"))) {
      if (e.isFile && e.name.endsWith(".jsonl")) {
        out.push(await Deno.readTextFile(join(dir, ".framework/traces", e.name)));
      }
    }
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err; // no run was recorded
  }
  return out;
}

Deno.test("file_read reads the file it checked: a name swapped for a link to .env gives nothing of it", async () => {
  await using home = await tempDir("fw-swap-home-");
  await using cwd = await tempDir("fw-swap-cwd-");
  const call100 = Array.from({ length: 100 }, () => ({
    name: "file_read",
    arguments: { path: "notes.txt" },
  }));
  const dir = await writeHarness(cwd.path, "reader", {
    model: scripted([{ tool_calls: call100 }, { tool_calls: call100 }, { text: "done" }]),
    tools: [{ builtin: "file_read" }],
  }, { ".env": `TOKEN=${SECRET}\n`, "notes.txt": "an ordinary note\n" });

  let run: Json;
  {
    await using _swapper = await swapping(dir);
    run = jsonOk(
      await runCli(["run", dir, "--input", "go", "--approve", "--json"], { home: home.path }),
    );
  }
  assert.equal(run.status, "success", JSON.stringify(run));
  const trace = jsonOk(await runCli(["trace", run.run_id, "--json"], { home: home.path }));
  const results = trace.events.filter((e: Json) => e.type === "tool_result")
    .map((e: Json) => e.payload);
  assert.equal(results.length, 200);
  const leaked = results.filter((r: Json) => JSON.stringify(r).includes(SECRET));
  assert.deepEqual(leaked, [], "no read returned .env's bytes");
  // A read either gets the ordinary file or is refused (how many of each depends on the race).
  for (const r of results) {
    if (r.ok) assert.equal(r.content, "an ordinary note\n");
    else assert.equal(r.error.code, "refused", JSON.stringify(r));
  }
  for (const j of await journals(dir)) assert.doesNotMatch(j, new RegExp(SECRET));
});

Deno.test("input_file reads the file it checked: a name swapped for a link to .env gives nothing of it", async () => {
  await using home = await tempDir("fw-swap-home-");
  await using cwd = await tempDir("fw-swap-cwd-");
  const dir = await writeHarness(join(cwd.path, "harnesses"), "taker", {
    model: scripted([{ text: "ok" }]),
  }, { ".env": `TOKEN=${SECRET}\n`, "notes.txt": "an ordinary note\n" });
  await using wb = await startWorkbenchProcess({ home: home.path, cwd: cwd.path });

  const statuses: number[] = [];
  {
    await using _swapper = await swapping(dir);
    for (let i = 0; i < 150; i++) {
      const res = await call(wb, "POST", "/api/harnesses/taker/runs", { input_file: "notes.txt" });
      statuses.push(res.status);
      assert.doesNotMatch(JSON.stringify(res.json), new RegExp(SECRET));
      if (res.status !== 200) {
        assert.equal(res.status, 400, JSON.stringify(res.json));
        assert.equal(res.json.error.kind, "bad_input");
      }
    }
  }
  const all = await journals(dir);
  assert.equal(all.length, statuses.filter((s) => s === 200).length);
  for (const j of all) {
    assert.doesNotMatch(j, new RegExp(SECRET), "no run was given .env's bytes");
    assert.match(j, /an ordinary note/);
  }
});
