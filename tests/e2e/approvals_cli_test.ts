/**
 * Tool approvals from the command line: `framework run` without a terminal says how to decide and
 * waits; `framework approvals` lists, shows, refuses a decision that quotes no hash (or the wrong
 * one) and decides once; on a terminal (a pseudo-terminal, as a person's shell) `framework run` asks
 * in place and `framework approvals approve ID` shows the request and asks; a run whose process was
 * killed while it waited is taken up again by `framework approvals approve` and finishes there. Also
 * `validate`'s warning for a glob that matches no tool, and `mcp serve` answering at once when its
 * run waits for a person; an MCP tool gated by a `server__*` glob.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { stdioTransport } from "../../lib/tools/mcp_stdio.ts";
import { approvalHarness } from "../helpers/approval_harness.ts";
import { CLI_PATH, runCli, spawnCli } from "../helpers/cli.ts";
import { jsonError, jsonOk } from "../helpers/cli_assert.ts";
import { fixtureServer } from "../helpers/mcp_fixture.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir } from "../helpers/temp.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

async function text(path: string): Promise<string | null> {
  return await Deno.readTextFile(path).catch(() => null);
}

Deno.test("framework run waits for a decision made with framework approvals", async (t) => {
  await using home = await tempDir("fw-apc-home-");
  await using root = await tempDir();
  const dir = await approvalHarness(root.path, "gated");
  const cli = (args: string[]) => runCli(args, { home: home.path });
  jsonOk(await cli(["trust", dir, "--json"]));
  await using run = spawnCli(["run", dir, "--input", "write it", "--json"], { home: home.path });
  const [, id, hash] = await run.until(
    /framework approvals \S+ approve (apr_\w+) --hash ([0-9a-f]{64})/,
  );

  await t.step("list and show: the request, its arguments in full", async () => {
    const pending = jsonOk(await cli(["approvals", dir, "--status", "pending", "--json"]));
    assert.deepEqual(pending.approvals.map((a: Json) => a.approval_id), [id]);
    const shown = jsonOk(await cli(["approvals", dir, "show", id!, "--json"]));
    assert.equal(shown.tool, "file_write");
    assert.deepEqual(shown.arguments, { path: "workspace/out.txt", content: "approved!" });
    assert.equal(shown.arguments_hash, hash);
    assert.equal(shown.status, "pending");
    const human = await cli(["approvals", dir, "show", id!]);
    assert.match(human.stdout, /"content": "approved!"/);
    assert.match(human.stdout, new RegExp(`arguments_hash ${hash}`));
    assert.deepEqual(jsonOk(await cli(["approvals", dir, "--status", "decided", "--json"])), {
      approvals: [],
    });
  });

  await t.step("a decision without the hash, or with another, changes nothing", async () => {
    const bare = jsonError(await cli(["approvals", dir, "approve", id!, "--json"]), "bad_input", 2);
    assert.equal(bare.details.arguments_hash, hash);
    assert.match(bare.message, /--hash/);
    jsonError(
      await cli(["approvals", dir, "approve", id!, "--hash", "0".repeat(64), "--json"]),
      "conflict",
      2,
    );
    jsonError(await cli(["approvals", dir, "approve", "apr_nope", "--json"]), "not_found", 2);
    jsonError(await cli(["approvals", dir, "maybe", id!, "--json"]), "bad_input", 2);
    assert.equal(
      jsonOk(await cli(["approvals", dir, "show", id!, "--json"])).status,
      "pending",
    );
    assert.equal(await text(join(dir, "workspace", "out.txt")), null);
  });

  await t.step("approved with its hash: the waiting run writes and finishes", async () => {
    const decided = jsonOk(
      await cli(["approvals", dir, "approve", id!, "--hash", hash!, "--json"]),
    );
    assert.equal(decided.status, "approved");
    assert.equal(decided.decided_by, "cli");
    assert.equal(decided.resumed_run_id, null, "the run was still going: no new run");
    assert.equal((await run.status()).code, 0, run.seen());
    assert.equal(await text(join(dir, "workspace", "out.txt")), "approved!");
    jsonError(
      await cli(["approvals", dir, "deny", id!, "--hash", hash!, "--json"]),
      "conflict",
      2,
    );
    const decidedList = jsonOk(await cli(["approvals", dir, "--status", "decided", "--json"]));
    assert.deepEqual(decidedList.approvals.map((a: Json) => a.status), ["approved"]);
  });
});

Deno.test("on a terminal: framework run asks in place, and framework approvals asks before deciding", async (t) => {
  await using home = await tempDir("fw-apt-home-");
  await using root = await tempDir();
  const dir = await approvalHarness(root.path, "asked");
  jsonOk(await runCli(["trust", dir, "--json"], { home: home.path }));

  await t.step("run: N and a reason deny; the model reads the reason", async () => {
    await using run = spawnCli(["run", dir, "--input", "write it"], {
      home: home.path,
      tty: true,
    });
    await run.until(/Approve file_write\? \[y\/N\]/);
    assert.match(run.seen(), /"path": "workspace\/out.txt"/);
    await run.write("n\n");
    await run.until(/Why not\?/);
    await run.write("not in this folder\n");
    await run.until(/Denied\./);
    assert.equal((await run.status()).code, 0, run.seen());
    assert.equal(await text(join(dir, "workspace", "out.txt")), null);
    const runs = jsonOk(await runCli(["runs", dir, "--json"], { home: home.path })).runs;
    const trace = jsonOk(await runCli(["trace", runs[0].run_id, "--json"], { home: home.path }));
    const decided = trace.events.find((e: Json) => e.type === "approval_decided");
    assert.equal(decided.payload.decision, "denied");
    assert.equal(decided.payload.by, "cli");
    assert.equal(decided.payload.reason, "not in this folder");
    const result = trace.events.find((e: Json) =>
      e.type === "tool_result" && e.payload.name === "file_write"
    );
    assert.match(JSON.stringify(result.payload), /denied by a person: not in this folder/);
  });

  await t.step("run: y approves; the file is written", async () => {
    await using run = spawnCli(["run", dir, "--input", "write it"], {
      home: home.path,
      tty: true,
    });
    await run.until(/Approve file_write\? \[y\/N\]/);
    await run.write("y\n");
    await run.until(/Approved\./);
    assert.equal((await run.status()).code, 0, run.seen());
    assert.equal(await text(join(dir, "workspace", "out.txt")), "approved!");
  });

  await t.step(
    "approvals approve without --hash on a terminal shows the request and asks",
    async () => {
      await Deno.remove(join(dir, "workspace", "out.txt"));
      await using waiting = spawnCli(["run", dir, "--input", "write it"], { home: home.path });
      const [, id] = await waiting.until(/approve (apr_\w+) --hash/);
      await using asking = spawnCli(["approvals", dir, "approve", id!], {
        home: home.path,
        tty: true,
      });
      await asking.until(/Approve file_write\? \[y\/N\]/);
      assert.match(asking.seen(), /"content": "approved!"/);
      await asking.write("y\n");
      assert.equal((await asking.status()).code, 0, asking.seen());
      assert.match(asking.seen(), new RegExp(`approved: ${id}`));
      assert.equal((await waiting.status()).code, 0, waiting.seen());
      assert.equal(await text(join(dir, "workspace", "out.txt")), "approved!");
    },
  );
});

Deno.test("framework approvals approve takes up a run (a thread's turn) whose process was killed while it waited", async () => {
  await using home = await tempDir("fw-apr-home-");
  await using root = await tempDir();
  const dir = await approvalHarness(root.path, "orphan");
  const cli = (args: string[]) => runCli(args, { home: home.path });
  jsonOk(await cli(["trust", dir, "--json"]));
  // A turn of a thread: taken up, it is a turn of the same thread.
  const run = spawnCli(["run", dir, "--thread", "new", "--input", "write it"], {
    home: home.path,
  });
  const [, id, hash] = await run.until(/approve (apr_\w+) --hash ([0-9a-f]{64})/);
  // A run waiting for a person keeps its thread busy.
  const [waitingThread] = jsonOk(await cli(["threads", dir, "--json"])).threads;
  assert.match(waitingThread.live_run_id, /^run_/);
  const busy = jsonError(
    await cli(["run", dir, "--thread", waitingThread.thread_id, "--input", "plain", "--json"]),
    "conflict",
    2,
  );
  assert.equal(busy.details.run_id, waitingThread.live_run_id);
  Deno.kill(run.pid, "SIGKILL");
  await run[Symbol.asyncDispose]();
  assert.equal(await text(join(dir, "workspace", "tally.txt")), "counted\n");

  const decided = await cli(["approvals", dir, "approve", id!, "--hash", hash!, "--json"]);
  const data = jsonOk(decided);
  assert.equal(data.status, "approved");
  assert.match(data.resumed_run_id, /^run_/);
  const trace = jsonOk(await cli(["trace", data.resumed_run_id, "--json"]));
  assert.equal(trace.status, "success", JSON.stringify(trace.events.at(-1)));
  assert.equal(trace.integrity.ok, true);
  assert.equal(trace.events[0].type, "run_resumed");
  // The prefix was replayed, not run again: one count, one write.
  assert.equal(await text(join(dir, "workspace", "tally.txt")), "counted\n");
  assert.equal(await text(join(dir, "workspace", "out.txt")), "approved!");
  const parent = jsonOk(await cli(["trace", trace.events[0].payload.parent_run_id, "--json"]));
  assert.equal(parent.status, "error");
  const threadId = parent.events[0].payload.thread_id;
  assert.match(threadId, /^thr_/);
  const started = trace.events.find((e: Json) => e.type === "run_started");
  assert.equal(started.payload.thread_id, threadId);
  const thread = jsonOk(await cli(["threads", dir, "show", threadId, "--json"]));
  assert.deepEqual(
    thread.runs.map((r: Json) => [r.run_id, r.status]),
    [[parent.run_id, "error"], [data.resumed_run_id, "success"]],
  );
  assert.equal(thread.live_run_id, null, "the thread is free again");
});

Deno.test("a request of a killed run that expired meanwhile is not decided: it expires", async () => {
  await using home = await tempDir("fw-ape-home-");
  await using root = await tempDir();
  const dir = await approvalHarness(root.path, "late", 1);
  const cli = (args: string[]) => runCli(args, { home: home.path });
  jsonOk(await cli(["trust", dir, "--json"]));
  const run = spawnCli(["run", dir, "--input", "write it"], { home: home.path });
  const [, id, hash] = await run.until(/approve (apr_\w+) --hash ([0-9a-f]{64})/);
  Deno.kill(run.pid, "SIGKILL");
  await run[Symbol.asyncDispose]();
  const { expires_at } = jsonOk(await cli(["approvals", dir, "show", id!, "--json"]));
  while (Date.now() <= Date.parse(expires_at)) await new Promise((r) => setTimeout(r, 100));
  const late = jsonError(
    await cli(["approvals", dir, "approve", id!, "--hash", hash!, "--json"]),
    "conflict",
    2,
  );
  assert.match(late.message, /expired/);
  const record = jsonOk(await cli(["approvals", dir, "show", id!, "--json"]));
  assert.equal(record.status, "expired");
  assert.equal(record.resumed_run_id, null);
  assert.equal(await text(join(dir, "workspace", "out.txt")), null);
});

Deno.test("validate warns about an approvals glob that matches nothing", async () => {
  await using home = await tempDir("fw-apv-home-");
  await using root = await tempDir();
  const dir = await writeHarness(root.path, "warned", {
    model: scripted([{ text: "ok" }]),
    tools: [{ builtin: "file_write" }],
    mcp_servers: [{ name: "github", url: "http://127.0.0.1:9/mcp" }],
    approvals: { tools: ["file_*", "shell", "github__*", "gitlab__*"] },
  });
  const data = jsonOk(await runCli(["validate", dir, "--json"], { home: home.path }));
  assert.equal(data.valid, true, "a warning, not an error");
  const messages = data.issues.map((w: Json) => `${w.path}: ${w.severity}: ${w.message}`);
  assert.equal(messages.length, 2, messages.join("\n"));
  assert.match(
    messages[0],
    /^approvals\.tools\.1: warning: .*"shell".*matches no tool.*file_write/,
  );
  assert.match(messages[1], /^approvals\.tools\.3: warning: .*"gitlab".*servers: github/);
});

Deno.test("mcp serve answers at once when its run waits for a person", async () => {
  await using home = await tempDir("fw-apm-home-");
  await using root = await tempDir();
  const dir = await approvalHarness(root.path, "served");
  jsonOk(await runCli(["trust", dir, "--json"], { home: home.path }));
  const denoDir = JSON.parse(
    new TextDecoder().decode(
      (await new Deno.Command(Deno.execPath(), { args: ["info", "--json"] }).output()).stdout,
    ),
  ).denoDir;
  const client = new Client({ name: "test", version: "1" });
  try {
    await client.connect(
      stdioTransport({
        command: Deno.execPath(),
        args: ["run", "-A", "--quiet", CLI_PATH, "mcp", "serve", dir],
        env: {
          PATH: Deno.env.get("PATH") ?? "",
          DENO_DIR: denoDir,
          FRAMEWORK_HOME: home.path,
          NO_COLOR: "1",
        },
        cwd: root.path,
      }),
      { timeout: 60_000 },
    );
    const answer = await client.callTool({ name: "run", arguments: { input: "write it" } });
    const s = answer.structuredContent as Json;
    assert.equal(s.status, "awaiting_approval");
    assert.match(s.approval_id, /^apr_/);
    assert.equal(s.tool, "file_write");
    assert.match((answer.content as Json)[0].text, /framework approvals .* approve\|deny apr_/);
    const pending = jsonOk(
      await runCli(["approvals", dir, "show", s.approval_id, "--json"], { home: home.path }),
    );
    assert.equal(pending.status, "pending");
    assert.equal(pending.run_id, s.run_id);
  } finally {
    await client.close();
  }
});

Deno.test({
  name: "an MCP tool is gated by a server__tool glob like any other tool",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await using home = await tempDir("fw-apmcp-home-");
    await using root = await tempDir();
    const dir = await writeHarness(root.path, "mcpgated", {
      model: scripted([
        { tool_calls: [{ name: "fixture__echo", arguments: { text: "from the server" } }] },
        { text: "echoed" },
      ]),
      mcp_servers: [await fixtureServer({}, { tools: ["echo"] })],
      approvals: { tools: ["fixture__*"] },
    });
    const cli = (args: string[]) => runCli(args, { home: home.path });
    jsonOk(await cli(["trust", dir, "--json"]));
    await using run = spawnCli(["run", dir, "--input", "echo", "--json"], { home: home.path });
    const [, id, hash] = await run.until(/approve (apr_\w+) --hash ([0-9a-f]{64})/);
    const shown = jsonOk(await cli(["approvals", dir, "show", id!, "--json"]));
    assert.equal(shown.tool, "fixture__echo");
    assert.deepEqual(shown.arguments, { text: "from the server" });
    jsonOk(await cli(["approvals", dir, "approve", id!, "--hash", hash!, "--json"]));
    assert.equal((await run.status()).code, 0, run.seen());
    const result = JSON.parse(run.seen().trim().split("\n").at(-1)!).data;
    const trace = jsonOk(await cli(["trace", result.run_id, "--json"]));
    const answered = trace.events.find((e: Json) => e.type === "tool_result");
    assert.equal(answered.payload.name, "fixture__echo");
    assert.equal(answered.payload.source, "mcp");
    assert.equal(answered.payload.content, "from the server");
  },
});
