/**
 * Rules of the workbench that hold against the real `framework workbench` process: the export of a
 * finished run is its journal's bytes; the copilot's remaining tools each work through a scripted
 * turn; `FRAMEWORK_UI_DB` moves the database alone; `--scan-dir` discovers a tree; credentials of
 * the API process reach a run; the bundled copilot is trusted at start and a broken bundle refuses
 * to start.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { verifyJournal } from "../../lib/journal/verify.ts";
import { runCli } from "../helpers/cli.ts";
import { jsonOk } from "../helpers/cli_assert.ts";
import { startFakeLlm } from "../helpers/fake_llm.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { scratchCheckout } from "../helpers/scratch_checkout.ts";
import { SseReader } from "../helpers/sse_reader.ts";
import { tempDir } from "../helpers/temp.ts";
import { startWorkbenchProcess, workbenchCall as call } from "../helpers/workbench.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

Deno.test("workbench: GET /api/runs/{id}/export of a finished run is its journal, byte for byte", async () => {
  await using home = await tempDir("fw-wrx-home-");
  await using cwd = await tempDir("fw-wrx-cwd-");
  const dir = await writeHarness(join(cwd.path, "harnesses"), "exported", {
    model: scripted([
      { tool_calls: [{ name: "list_files", arguments: {} }] },
      { text: "Two turns, done. ünïcode ✓" },
    ]),
    tools: [{ builtin: "list_files" }],
  });
  await using wb = await startWorkbenchProcess({ home: home.path, cwd: cwd.path });
  const run = await call(wb, "POST", "/api/harnesses/exported/runs", { input: "go" });
  assert.equal(run.status, 200, JSON.stringify(run.json));
  assert.equal(run.json.data.status, "success");
  const runId = run.json.data.run_id;

  const res = await fetch(`${wb.url}/api/runs/${runId}/export`);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "application/x-ndjson");
  assert.match(res.headers.get("content-disposition") ?? "", new RegExp(`${runId}\\.jsonl`));
  const exported = new Uint8Array(await res.arrayBuffer());
  const onDisk = await Deno.readFile(join(dir, ".framework", "traces", `${runId}.jsonl`));
  assert.deepEqual(exported, onDisk, "the export is the journal file's bytes");
  const verdict = verifyJournal(exported);
  assert.equal(verdict.ok, true, JSON.stringify(verdict));
  assert.ok(verdict.checked >= 6, `checked ${verdict.checked} events`);
});

Deno.test("workbench copilot: generate_interface, dry_run, measure_harness, recall and forget memories, list_builtins", async (t) => {
  await using home = await tempDir("fw-wct-home-");
  await using cwd = await tempDir("fw-wct-cwd-");
  const dir = await writeHarness(join(cwd.path, "harnesses"), "target", {
    name: "Target",
    instructions: "Answer briefly.",
    model: scripted([{ text: "ok" }]),
    tools: [{ builtin: "list_files" }],
    limits: { max_turns: 3 },
  });
  const cli = (args: string[]) => runCli(args, { home: home.path, cwd: cwd.path });
  jsonOk(await cli(["run", dir, "--input", "hello", "--approve", "--json"]));
  const step = (match: string, name: string, args: Json) => ({
    match,
    replies: [{ tool_calls: [{ name, arguments: args }] }, { text: `${name} done.` }],
  });
  const script = join(home.path, "copilot.yaml");
  await Deno.writeTextFile(
    script,
    JSON.stringify({
      scenarios: [
        step("PAGE", "generate_interface", { harness: "target", input: "url" }),
        step("DRY", "dry_run", { harness: "target", input: "What would you send?" }),
        step("MEASURE", "measure_harness", { harness: "target" }),
        step("REMEMBER", "remember_memory", {
          content: "Prefers short answers",
          scope: "harness",
          harness: "target",
        }),
        step("RECALL", "recall_memories", { harness: "target", query: "short" }),
        step("BUILTINS", "list_builtins", {}),
        // The id is only known at run time: the script refers to it by a placeholder replaced below.
        step("FORGET", "forget_memory", { id: "MEMORY_ID" }),
      ],
    }),
  );
  const wbOptions = {
    home: home.path,
    cwd: cwd.path,
    env: { FRAMEWORK_COPILOT_MODEL: `scripted:${script}` },
  };
  let wb = await startWorkbenchProcess(wbOptions);
  try {
    let conv = (await call(wb, "POST", "/api/conversations", {})).json.data.id;
    const turn = async (message: string) => {
      const res = await fetch(`${wb.url}/api/conversations/${conv}/messages`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ message }),
      });
      assert.equal(res.status, 200);
      const frames = await new SseReader(res).rest();
      const stored = frames.find((f) => f.event === "message")!.data;
      const part = stored.message.parts.find((p: Json) => p.type === "tool");
      assert.ok(part, `a tool part in ${JSON.stringify(stored.message.parts)}`);
      assert.equal(part.ok, true, part.result);
      return JSON.parse(part.result);
    };

    await t.step(
      "generate_interface writes the page and returns an interface artifact",
      async () => {
        const made = await turn("PAGE make a page for it");
        assert.equal(made.harness_id, "target");
        assert.equal(made.input, "url");
        const page = await Deno.readFile(join(dir, "interfaces", "default", "index.html"));
        assert.equal(page.length, made.bytes);
        const view = (await call(wb, "GET", `/api/conversations/${conv}`)).json.data;
        const artifact = view.artifacts.find((a: Json) => a.kind === "interface");
        assert.ok(artifact, JSON.stringify(view.artifacts));
        assert.equal(artifact.harness_id, "target");
        assert.equal(JSON.parse(artifact.content).path, made.path);
      },
    );

    await t.step("dry_run composes what a run would send, without a model call", async () => {
      const runsBefore = (await call(wb, "GET", "/api/harnesses/target/runs")).json.data.runs;
      const dry = await turn("DRY what would it send");
      assert.equal(dry.id, "target");
      assert.match(dry.system, /Answer briefly\./);
      assert.equal(dry.first_message, "What would you send?");
      assert.deepEqual(dry.tools.map((x: Json) => x.name), ["list_files"]);
      assert.equal(dry.limits.max_turns, 3);
      const runsAfter = (await call(wb, "GET", "/api/harnesses/target/runs")).json.data.runs;
      assert.equal(runsAfter.length, runsBefore.length, "a dry run starts no run");
    });

    await t.step("measure_harness reports the harness's live figures", async () => {
      const m = await turn("MEASURE how is it doing");
      assert.equal(m.id, "target");
      assert.equal(m.runs.total, 1);
      assert.equal(m.runs.by_status.success, 1);
      assert.equal(m.runs.success_rate, 1);
    });

    let memoryId = "";
    await t.step("recall_memories finds a remembered fact of the harness", async () => {
      const remembered = await turn("REMEMBER that I prefer short answers");
      memoryId = remembered.remembered;
      assert.match(memoryId, /^mem_/);
      const recalled = await turn("RECALL what do I prefer");
      assert.deepEqual(
        recalled.map((m: Json) => [m.id, m.content, m.harness_id]),
        [[memoryId, "Prefers short answers", "target"]],
      );
    });

    await t.step("list_builtins answers the live catalog", async () => {
      const builtins = await turn("BUILTINS which builtins are there");
      const text = JSON.stringify(builtins);
      for (const name of ["file_read", "list_files", "deny_pattern", "regex", "contains"]) {
        assert.ok(text.includes(`"${name}"`), `${name} in ${text}`);
      }
    });

    await t.step("forget_memory deletes it", async () => {
      // The forgetting script names the memory the previous step created.
      const text = await Deno.readTextFile(script);
      await Deno.writeTextFile(script, text.replace("MEMORY_ID", memoryId));
      await wb.stop();
      wb = await startWorkbenchProcess(wbOptions);
      conv = (await call(wb, "POST", "/api/conversations", {})).json.data.id;
      const forgotten = await turn("FORGET it");
      assert.equal(forgotten.forgotten, memoryId);
      const gone = await call(wb, "GET", `/api/memories/${memoryId}`);
      assert.equal(gone.status, 404);
    });
  } finally {
    await wb.stop();
  }
});

Deno.test("workbench: FRAMEWORK_UI_DB moves the database alone; the default is <home>/workbench/workbench.db", async (t) => {
  await using home = await tempDir("fw-wdb-home-");
  await using cwd = await tempDir("fw-wdb-cwd-");
  await using elsewhere = await tempDir("fw-wdb-else-");
  await writeHarness(join(cwd.path, "harnesses"), "h", { model: scripted([{ text: "ok" }]) });
  const defaultDb = join(home.path, "workbench", "workbench.db");
  const moved = join(elsewhere.path, "nested", "my.db");

  await t.step("with FRAMEWORK_UI_DB, the conversations live in that file", async () => {
    await Deno.mkdir(join(elsewhere.path, "nested"));
    await using wb = await startWorkbenchProcess({
      home: home.path,
      cwd: cwd.path,
      env: { FRAMEWORK_UI_DB: moved },
    });
    const made = await call(wb, "POST", "/api/conversations", { title: "Moved" });
    assert.equal(made.status, 201, JSON.stringify(made.json));
    assert.ok(await exists(moved), "the database is at FRAMEWORK_UI_DB");
    assert.equal(await exists(defaultDb), false, "nothing at the default path");
    // Everything else stays in the home: the copilot's working copy, the hive.
    assert.ok(await exists(join(home.path, "workbench", "copilot", "harness.yaml")));
    const run = await call(wb, "POST", "/api/harnesses/h/runs", { input: "hi" });
    assert.equal(run.status, 200);
    assert.ok(await exists(join(home.path, "hive.db")));
  });

  await t.step(
    "without it, the default file holds them, and the moved one is not read",
    async () => {
      await using wb = await startWorkbenchProcess({ home: home.path, cwd: cwd.path });
      const list = (await call(wb, "GET", "/api/conversations")).json.data.conversations;
      assert.equal(list.some((c: Json) => c.title === "Moved"), false);
      await call(wb, "POST", "/api/conversations", { title: "Default" });
      assert.ok(await exists(defaultDb));
    },
  );
});

/** Every node of the catalog tree, with the id of the node it is nested under. */
function flatten(nodes: Json[], parent: string | null = null): [string, string | null, Json][] {
  return nodes.flatMap((n) => [[n.id, parent, n], ...flatten(n.children, n.id)]);
}

Deno.test("workbench --scan-dir discovers every harness of a tree, nested by folder containment", async () => {
  await using home = await tempDir("fw-wsd-home-");
  await using cwd = await tempDir("fw-wsd-cwd-");
  await using tree = await tempDir("fw-wsd-tree-");
  const model = scripted([{ text: "ok" }]);
  await writeHarness(tree.path, "alpha", { model });
  await writeHarness(join(tree.path, "team", "deep"), "beta", { model });
  // A harness inside another's folder nests under it, whatever the names say.
  await writeHarness(tree.path, "outer", { model });
  await writeHarness(join(tree.path, "outer", "parts"), "aaa-inner", { model });
  await using wb = await startWorkbenchProcess({
    home: home.path,
    cwd: cwd.path,
    args: ["--scan-dir", tree.path],
  });
  const nodes = flatten((await call(wb, "GET", "/api/harnesses")).json.data.harnesses);
  assert.deepEqual(nodes.map(([id, parent]) => [id, parent]).sort(), [
    ["aaa-inner", "outer"],
    ["alpha", null],
    ["beta", null],
    ["outer", null],
  ]);
  const beta = nodes.find(([id]) => id === "beta")![2];
  assert.equal(beta.root_path, await Deno.realPath(join(tree.path, "team", "deep", "beta")));
  assert.equal(beta.is_fork, false);

  // Without --scan-dir (and with a home that never saw it) the same tree is not offered.
  await wb.stop();
  await using otherHome = await tempDir("fw-wsd-home-");
  await using plain = await startWorkbenchProcess({ home: otherHome.path, cwd: cwd.path });
  const none = flatten((await call(plain, "GET", "/api/harnesses")).json.data.harnesses);
  assert.deepEqual(none.filter(([id]) => id === "alpha"), []);
});

Deno.test("workbench: a key in the API process's environment reaches a run's provider", async () => {
  await using home = await tempDir("fw-wenv-home-");
  await using cwd = await tempDir("fw-wenv-cwd-");
  await using llm = await startFakeLlm();
  llm.queue({ text: "Answered with the process's key." });
  await writeHarness(join(cwd.path, "harnesses"), "keyed", {
    model: {
      provider: "openai-compatible",
      name: "local-model",
      base_url: `${llm.url}/v1`,
      api_key_env: "WORKBENCH_TEST_KEY",
    },
  });
  await using wb = await startWorkbenchProcess({
    home: home.path,
    cwd: cwd.path,
    env: { WORKBENCH_TEST_KEY: "sk-from-the-process-environment" },
  });
  const run = await call(wb, "POST", "/api/harnesses/keyed/runs", { input: "hi" });
  assert.equal(run.status, 200, JSON.stringify(run.json));
  assert.equal(run.json.data.status, "success", JSON.stringify(run.json.data));
  assert.equal(run.json.data.output, "Answered with the process's key.");
  assert.equal(llm.requests.length, 1);
  assert.equal(
    llm.requests[0]!.headers["authorization"],
    "Bearer sk-from-the-process-environment",
  );
});

Deno.test("workbench: the bundled copilot is trusted at start, and a broken bundle refuses to start", async (t) => {
  await t.step("a start trusts the copilot's working copy", async () => {
    await using home = await tempDir("fw-wcp-home-");
    await using cwd = await tempDir("fw-wcp-cwd-");
    await using wb = await startWorkbenchProcess({ home: home.path, cwd: cwd.path });
    const trust = JSON.parse(await Deno.readTextFile(join(home.path, "trust.json")));
    const copilot = await Deno.realPath(join(home.path, "workbench", "copilot"));
    assert.ok(JSON.stringify(trust).includes(JSON.stringify(copilot)), JSON.stringify(trust));
    const list = (await call(wb, "GET", "/api/health")).json;
    assert.equal(list.ok, true);
  });

  await t.step("an invalid bundled copilot stops the start with a clear error", async () => {
    await using checkout = await scratchCheckout();
    const bundle = join(checkout.path, "lib", "workbench", "copilot", "harness.yaml");
    const text = await Deno.readTextFile(bundle);
    await Deno.writeTextFile(bundle, text.replace("max_turns: 16", 'max_turns: "many"'));
    await using home = await tempDir("fw-wcp-home-");
    await using cwd = await tempDir("fw-wcp-cwd-");
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--quiet", join(checkout.path, "cli.ts"), "workbench", "--port", "0"],
      cwd: cwd.path,
      env: { FRAMEWORK_HOME: home.path, NO_COLOR: "1", FRAMEWORK_COPILOT_MODEL: "" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    assert.notEqual(out.code, 0, "it does not serve");
    assert.match(stderr, /bundled copilot harness is invalid/);
    assert.match(stderr, /limits\.max_turns/);
    assert.equal(new TextDecoder().decode(out.stdout).includes("http://"), false);
  });
});
