/**
 * MCP servers in real runs: the reference "everything" server from npm over stdio (started with only
 * PATH and its own env, in the harness folder) and a Streamable HTTP server this test starts. A
 * scripted harness calls MCP tools and gets their real results; the allow-list hides the other tools;
 * a call that hangs hits its time limit; the server process is gone after the run, after a stop and
 * after a timeout; its environment holds none of this process's variables; a server that cannot start
 * fails the run by name (or is skipped when optional); an untrusted folder starts nothing.
 *
 * @module
 */

import assert from "node:assert/strict";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import * as z from "zod";
import type { JournalEvent } from "../../lib/journal/event.ts";
import { parseJournal, verifyJournal } from "../../lib/journal/verify.ts";
import { startRun } from "../../lib/runs/service.ts";
import { trustFolder } from "../../lib/trust/store.ts";
import { validateHarness } from "../../lib/validate/validate.ts";
import { cacheEverything, denoDir, everythingServer } from "../helpers/everything.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir, tempHome } from "../helpers/temp.ts";

/** The stdio server entry: Deno runs the npm package from its cache, nothing else inherited. */
async function everything(extra: Record<string, unknown> = {}) {
  return await everythingServer({
    env: { DENO_DIR: await denoDir(), MARKER: "own-env" },
    tools: ["echo", "get-env", "trigger-long-running-operation"],
    timeout_s: 3,
    ...extra,
  });
}

/** Server processes whose working folder is the harness (the server runs there). */
async function serversIn(dir: string): Promise<number> {
  let n = 0;
  for await (const e of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(e.name)) continue;
    try {
      const cwd = await Deno.readLink(`/proc/${e.name}/cwd`);
      const cmd = await Deno.readTextFile(`/proc/${e.name}/cmdline`);
      if (cwd === dir && cmd.includes("server-everything")) n++;
    } catch {
      // gone or not ours
    }
  }
  return n;
}

async function journal(path: string): Promise<JournalEvent[]> {
  const bytes = await Deno.readFile(path);
  assert.equal(verifyJournal(bytes).ok, true);
  return parseJournal(bytes);
}

Deno.test({
  name: "MCP: stdio and HTTP servers give real tools, bounded, isolated and stopped",
  ignore: Deno.build.os !== "linux",
  async fn(t) {
    // The package comes from npm once, into Deno's cache, so the server itself needs no network.
    const cached = await cacheEverything();
    assert.ok(cached.ok, cached.stderr);
    await using _home = await tempHome();
    await using root = await tempDir();
    Deno.env.set("FW_PARENT_SECRET", "must-not-leak");

    await t.step(
      "a run calls MCP tools and gets real results; the allow-list hides the rest",
      async () => {
        const dir = await writeHarness(root.path, "uses-mcp", {
          model: scripted([
            { tool_calls: [{ name: "everything__echo", arguments: { message: "hello mcp" } }] },
            { tool_calls: [{ name: "everything__get-env", arguments: {} }] },
            {
              tool_calls: [{
                name: "everything__trigger-long-running-operation",
                arguments: { duration: 30, steps: 3 },
              }],
            },
            { text: "done" },
          ]),
          mcp_servers: [await everything()],
          limits: { max_turns: 6 },
        });
        await trustFolder(dir);
        const run = await startRun(dir, { input: "use the tools" });
        const result = await run.result;
        assert.equal(result.status, "success", JSON.stringify(result.error));
        const events = await journal(run.trace_path);
        const offered = events.find((e) => e.type === "model_call")!.payload.tools as string[];
        assert.deepEqual(offered.filter((n) => n.startsWith("everything__")).sort(), [
          "everything__echo",
          "everything__get-env",
          "everything__trigger-long-running-operation",
        ]);
        const results = events.filter((e) => e.type === "tool_result").map((e) => e.payload);
        assert.deepEqual([results[0]!.source, results[0]!.server, results[0]!.ok], [
          "mcp",
          "everything",
          true,
        ]);
        assert.equal(results[0]!.content, "Echo: hello mcp");
        const env = JSON.parse(String(results[1]!.content));
        assert.equal(env.MARKER, "own-env");
        assert.ok(env.PATH, "PATH is given");
        assert.equal(env.FW_PARENT_SECRET, undefined, "no variable of this process");
        assert.equal(env.HOME, undefined);
        assert.equal(results[2]!.ok, false);
        assert.equal((results[2]!.error as { code: string }).code, "timeout");
        const call = events.find((e) => e.type === "tool_call")!.payload;
        assert.deepEqual([call.source, call.server], ["mcp", "everything"]);
        assert.equal(await serversIn(dir), 0, "the server is gone after the run (and its timeout)");
      },
    );

    await t.step("stop now: the server is gone too", async () => {
      const dir = await writeHarness(root.path, "stopped-mcp", {
        model: scripted([{ text: "never", delay_ms: 10_000 }]),
        mcp_servers: [await everything()],
      });
      await trustFolder(dir);
      const run = await startRun(dir, { input: "wait" });
      for await (const e of run.events) if (e.type === "model_call") break;
      assert.equal(await serversIn(dir), 1, "the server runs during the run");
      run.controls.stop("test", true);
      assert.equal((await run.result).error?.reason, "stopped");
      assert.equal(await serversIn(dir), 0);
    });

    await t.step(
      "a server that cannot start fails the run by name, or is skipped when optional",
      async () => {
        const broken = { name: "broken", command: "false" };
        const dir = await writeHarness(root.path, "broken-mcp", {
          model: scripted([{ text: "ok" }]),
          mcp_servers: [broken],
        });
        await trustFolder(dir);
        const failed = await (await startRun(dir, { input: "x" })).result;
        assert.equal(failed.status, "error");
        assert.equal(failed.error?.reason, "mcp:broken");
        assert.match(String(failed.error?.message), /MCP server broken did not start/);
        const lenient = await writeHarness(root.path, "lenient-mcp", {
          model: scripted([{ text: "ok" }]),
          mcp_servers: [{ ...broken, optional: true }],
        });
        await trustFolder(lenient);
        const run = await startRun(lenient, { input: "x" });
        assert.equal((await run.result).status, "success");
        const warning = (await journal(run.trace_path)).find((e) => e.type === "warning")!.payload;
        assert.equal(warning.code, "mcp_unavailable");
      },
    );

    await t.step("an untrusted folder starts no server", async () => {
      const dir = await writeHarness(root.path, "untrusted-mcp", {
        model: scripted([{ text: "ok" }]),
        mcp_servers: [await everything()],
      });
      await assert.rejects(startRun(dir, { input: "x" }), /not trusted/);
      assert.equal(await serversIn(dir), 0);
    });

    await t.step("a Streamable HTTP server started here", async () => {
      const server = new McpServer({ name: "test-http", version: "1" });
      server.registerTool(
        "shout",
        { description: "Upper-cases a text", inputSchema: { text: z.string() } },
        ({ text }: { text: string }) => ({
          content: [{ type: "text" as const, text: text.toUpperCase() }],
        }),
      );
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
      });
      await server.connect(transport);
      await using http = Deno.serve(
        { hostname: "127.0.0.1", port: 0, onListen: () => {} },
        (req) => transport.handleRequest(req),
      );
      const dir = await writeHarness(root.path, "http-mcp", {
        model: scripted([
          { tool_calls: [{ name: "web__shout", arguments: { text: "quiet" } }] },
          { text: "done" },
        ]),
        mcp_servers: [{ name: "web", url: `http://127.0.0.1:${http.addr.port}/mcp` }],
      });
      const run = await startRun(dir, { input: "shout" });
      assert.equal((await run.result).status, "success");
      const result = (await journal(run.trace_path)).find((e) => e.type === "tool_result")!.payload;
      assert.equal(result.content, "QUIET");
      await server.close();
    });
    Deno.env.delete("FW_PARENT_SECRET");
  },
});

Deno.test({
  name: "validate --connect lists each MCP server's tools, and names a server that does not start",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const cached = await cacheEverything();
    assert.ok(cached.ok, cached.stderr);
    await using _home = await tempHome();
    await using root = await tempDir();
    const dir = await writeHarness(root.path, "checked-mcp", {
      model: scripted([{ text: "ok" }]),
      mcp_servers: [await everything({ tools: ["echo"] }), { name: "broken", command: "false" }],
    });
    await trustFolder(dir);
    const v = await validateHarness(dir, { connect: true });
    assert.deepEqual(v.mcp, [{ server: "everything", tools: ["everything__echo"] }]);
    const broken = v.issues.find((i) => i.path === "mcp_servers.1")!;
    assert.equal(broken.severity, "error");
    assert.match(broken.message, /MCP server broken did not start/);
    assert.equal(await serversIn(dir), 0, "validate stops what it started");
    const plain = await validateHarness(dir);
    assert.equal(plain.mcp, undefined, "without --connect nothing starts");
  },
});
