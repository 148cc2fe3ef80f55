/**
 * A stdio MCP server that ignores SIGTERM and starts a child of its own (`sleep 1000`) leaves nothing
 * behind: when the run ends, the framework stops the server's whole process group, so neither the
 * server nor its child is alive afterwards — whether the run ended on its own or was stopped, and
 * when the workbench itself is stopped in the middle of the run.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { startRun } from "../../lib/runs/service.ts";
import { listServerTools } from "../../lib/tools/mcp.ts";
import { loadSpec } from "../../lib/harness_spec/load.ts";
import { trustFolder } from "../../lib/trust/store.ts";
import { alive, diedWithin, fixtureServer } from "../helpers/mcp_fixture.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { SseReader } from "../helpers/sse_reader.ts";
import { tempDir, tempHome } from "../helpers/temp.ts";
import { startWorkbenchProcess } from "../helpers/workbench.ts";

async function stubborn(root: string, name: string, replies: Record<string, unknown>[]) {
  const startLog = join(root, `${name}.starts`);
  const childPid = join(root, `${name}.child`);
  const dir = await writeHarness(root, name, {
    model: scripted(replies),
    mcp_servers: [
      await fixtureServer({ START_LOG: startLog, CHILD_PID_FILE: childPid, IGNORE_SIGTERM: "1" }),
    ],
  });
  await trustFolder(dir);
  return {
    dir,
    pids: async () => ({
      server: Number((await Deno.readTextFile(startLog)).trim()),
      child: Number((await Deno.readTextFile(childPid)).trim()),
    }),
  };
}

Deno.test({
  name: "MCP process group: a server that ignores SIGTERM and its child are gone after the run",
  ignore: Deno.build.os !== "linux",
  async fn(t) {
    await using _home = await tempHome();
    await using root = await tempDir();

    await t.step("the run ends on its own", async () => {
      const h = await stubborn(root.path, "ended", [
        { tool_calls: [{ name: "fixture__echo", arguments: { text: "hi" } }] },
        { text: "done" },
      ]);
      const run = await startRun(h.dir, { input: "echo" });
      assert.equal((await run.result).status, "success");
      const { server, child } = await h.pids();
      assert.ok(await diedWithin(server), "the server is gone");
      assert.ok(await diedWithin(child), "its child is gone");
    });

    await t.step("the run is stopped", async () => {
      const h = await stubborn(root.path, "stopped", [{ text: "never", delay_ms: 60_000 }]);
      const run = await startRun(h.dir, { input: "wait" });
      for await (const e of run.events) if (e.type === "model_call") break;
      const { server, child } = await h.pids();
      assert.ok(await alive(server) && await alive(child), "both run during the run");
      run.controls.stop("test", true);
      assert.equal((await run.result).error?.reason, "stopped");
      assert.ok(await diedWithin(server), "the server is gone");
      assert.ok(await diedWithin(child), "its child is gone");
    });

    await t.step("a listing (workbench Overview, validate --connect) stops them too", async () => {
      const h = await stubborn(root.path, "listed", [{ text: "unused" }]);
      const loaded = await loadSpec(h.dir);
      const [listed] = await listServerTools(h.dir, loaded.spec, true);
      assert.deepEqual(listed!.tools, ["fixture__echo", "fixture__flood", "fixture__stall"]);
      const { server, child } = await h.pids();
      assert.ok(await diedWithin(server), "the server is gone");
      assert.ok(await diedWithin(child), "its child is gone");
    });

    await t.step("the workbench is stopped during the run", async () => {
      await using cwd = await tempDir("fw-pgroup-cwd-");
      const h = await stubborn(join(cwd.path, "harnesses"), "exiting", [
        { text: "never", delay_ms: 60_000 },
      ]);
      const wb = await startWorkbenchProcess({ home: _home.path, cwd: cwd.path });
      try {
        const res = await fetch(`${wb.url}/api/harnesses/exiting/runs?stream=true`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ input: "wait" }),
        });
        const frames = new SseReader(res);
        await frames.until((f) => f.event === "trace" && f.data.type === "model_call", "the call");
        const { server, child } = await h.pids();
        assert.ok(await alive(server) && await alive(child), "both run during the run");
        // The page goes away (the run goes on), then the workbench is stopped (SIGTERM) mid-run.
        await frames.close();
        await wb.stop();
        assert.ok(await diedWithin(server), "the server is gone");
        assert.ok(await diedWithin(child), "its child is gone");
      } finally {
        await wb.stop();
      }
    });
  },
});
