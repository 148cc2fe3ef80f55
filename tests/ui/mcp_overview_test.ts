/**
 * MCP in the workbench, in Chromium: the Overview lists a harness's MCP servers and, on Connect,
 * their tools; a run's MCP tool call shows its server in Trace.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { startRun } from "../../lib/runs/service.ts";
import { trustFolder } from "../../lib/trust/store.ts";
import { launchBrowser, openPage } from "../helpers/browser.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir, tempHome } from "../helpers/temp.ts";
import { startWorkbenchProcess } from "../helpers/workbench.ts";
import { cacheEverything, everythingServer } from "../helpers/everything.ts";

Deno.test({
  name: "MCP in the workbench: servers and their tools on Connect; the server of a call in Trace",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const cached = await cacheEverything();
    assert.ok(cached.ok, cached.stderr);
    await using home = await tempHome();
    await using cwd = await tempDir("fw-mcpui-cwd-");
    const dir = await writeHarness(join(cwd.path, "harnesses"), "tooled", {
      name: "Tooled",
      model: scripted([
        { tool_calls: [{ name: "everything__echo", arguments: { message: "ui" } }] },
        { text: "done" },
      ]),
      mcp_servers: [await everythingServer({ tools: ["echo", "get-sum"] })],
    });
    await trustFolder(dir);
    const run = await startRun(dir, { input: "echo" });
    assert.equal((await run.result).status, "success");
    await using wb = await startWorkbenchProcess({ home: home.path, cwd: cwd.path });
    await using tb = await launchBrowser();
    const { page } = tb;
    await openPage(page, `${wb.url}/h/tooled`);
    const servers = page.getByTestId("mcp-servers");
    await servers.waitFor();
    await servers.getByRole("button", { name: "Connect and list tools" }).click();
    await servers.locator('[data-server="everything"]', { hasText: "everything__echo" }).waitFor();
    assert.match(
      await servers.locator('[data-server="everything"]').innerText(),
      /everything__echo, everything__get-sum/,
    );
    await openPage(page, `${wb.url}/h/tooled/trace?run=${run.run_id}`);
    await page.locator(".event-row .ev-summary", { hasText: "· MCP everything" }).waitFor();
    await tb.screenshot("mcp", "overview-trace-1280");
    assert.deepEqual(tb.errors, []);
    assert.deepEqual(tb.foreign, []);
  },
});
