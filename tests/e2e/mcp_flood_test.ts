/**
 * An MCP server that writes without newlines cannot freeze the framework: a real stdio server (the
 * fixture, `tests/helpers/children/mcp_fixture_server.ts`) floods 12 MiB without a newline during a
 * run in the real workbench. The workbench answers `/api/health` in the middle of the flood, the
 * line cap (8 MiB) stops the server before the flood ends with an error that names the limit, and
 * the run goes on with a tool error.
 * A line that stays open below the cap is ended by the tool's time limit.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import type { JournalEvent } from "../../lib/journal/event.ts";
import { parseJournal } from "../../lib/journal/verify.ts";
import { startRun } from "../../lib/runs/service.ts";
import { trustFolder } from "../../lib/trust/store.ts";
import { alive, diedWithin, fixtureServer } from "../helpers/mcp_fixture.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir, tempHome } from "../helpers/temp.ts";
import { startWorkbenchProcess, workbenchCall } from "../helpers/workbench.ts";

Deno.test({
  name:
    "MCP flood: 12 MiB without a newline stops the server by the line cap; health answers meanwhile",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await using home = await tempHome();
    await using cwd = await tempDir("fw-flood-cwd-");
    const order: string[] = [];
    let workbenchUrl = "";
    // The fixture calls these hooks: halfway through the flood (the workbench then holds 6 MiB of
    // an unfinished line; the hook asks its health before the fixture writes on) and at its end
    // (never reached when the cap stops the server).
    await using hooks = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      async (req) => {
        const path = new URL(req.url).pathname;
        order.push(path);
        if (path === "/flood-mid") {
          const res = await fetch(`${workbenchUrl}/api/health`);
          await res.body?.cancel();
          order.push(`health ${res.status}`);
        }
        return new Response("ok");
      },
    );
    const startLog = join(cwd.path, "starts.log");
    const dir = await writeHarness(join(cwd.path, "harnesses"), "flooded", {
      model: scripted([
        { tool_calls: [{ name: "fixture__flood", arguments: {} }] },
        { tool_calls: [{ name: "fixture__echo", arguments: { text: "again" } }] },
        { text: "went on" },
      ]),
      mcp_servers: [
        await fixtureServer({
          HOOK: `http://127.0.0.1:${hooks.addr.port}`,
          START_LOG: startLog,
        }, { timeout_s: 20 }),
      ],
      limits: { max_turns: 5 },
    });
    await trustFolder(dir);
    await using wb = await startWorkbenchProcess({ home: home.path, cwd: cwd.path });
    workbenchUrl = wb.url;

    const { status, json } = await workbenchCall(wb, "POST", "/api/harnesses/flooded/runs", {
      input: "flood",
    });
    assert.equal(status, 200, JSON.stringify(json));
    assert.equal(json.data.status, "success", JSON.stringify(json.data.error));

    assert.deepEqual(
      order,
      ["/flood-mid", "health 200"],
      "health answered mid-flood; no flood end",
    );

    const trace = await workbenchCall(wb, "GET", `/api/runs/${json.data.run_id}`);
    const events = trace.json.data.events as JournalEvent[];
    const results = events.filter((e) => e.type === "tool_result").map((e) => e.payload);
    assert.equal(results.length, 2);
    const flood = results[0] as { ok: boolean; error: { code: string; message: string } };
    assert.equal(flood.ok, false);
    assert.match(flood.error.message, /longer than 8 MiB/, flood.error.message);
    assert.match(flood.error.message, /fixture/);
    const again = results[1] as { ok: boolean; error: { message: string } };
    assert.equal(again.ok, false, "the server is treated as failed for the rest of the run");
    assert.match(again.error.message, /longer than 8 MiB/);

    const pid = Number((await Deno.readTextFile(startLog)).trim());
    assert.ok(await diedWithin(pid), "the flooding server is gone");
  },
});

Deno.test({
  name: "MCP stall: a line left open below the cap is ended by the tool's time limit",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await using _home = await tempHome();
    await using root = await tempDir();
    const startLog = join(root.path, "starts.log");
    const dir = await writeHarness(root.path, "stalled", {
      model: scripted([
        { tool_calls: [{ name: "fixture__stall", arguments: {} }] },
        { text: "went on" },
      ]),
      mcp_servers: [await fixtureServer({ START_LOG: startLog }, { timeout_s: 1 })],
    });
    await trustFolder(dir);
    const run = await startRun(dir, { input: "stall" });
    const result = await run.result;
    assert.equal(result.status, "success", JSON.stringify(result.error));
    const events = parseJournal(await Deno.readFile(run.trace_path));
    const stalled = events.find((e) => e.type === "tool_result")!.payload as {
      ok: boolean;
      error: { code: string };
    };
    assert.equal(stalled.ok, false);
    assert.equal(stalled.error.code, "timeout");
    const pid = Number((await Deno.readTextFile(startLog)).trim());
    assert.ok(await diedWithin(pid), "the server is gone after the run");
    assert.equal(await alive(pid), false);
  },
});
