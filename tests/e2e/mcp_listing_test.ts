/**
 * Listing a harness's MCP tools starts its servers, so it is a write: `GET /api/harnesses/{id}/mcp`
 * (what an `<img>` on any site sends) starts nothing, a `POST` from another site is refused before
 * anything starts, the workbench's own `POST` lists the tools, and listings asked for at once share
 * one start of the servers.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { loadSpec } from "../../lib/harness_spec/load.ts";
import { listServerTools } from "../../lib/tools/mcp.ts";
import { trustFolder } from "../../lib/trust/store.ts";
import { fixtureServer } from "../helpers/mcp_fixture.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir, tempHome } from "../helpers/temp.ts";
import { startWorkbenchProcess } from "../helpers/workbench.ts";

async function starts(log: string): Promise<number> {
  try {
    return (await Deno.readTextFile(log)).split("\n").filter(Boolean).length;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return 0;
    throw err;
  }
}

Deno.test({
  name: "MCP listing: GET and cross-site POST start nothing; POST lists; concurrent listings share",
  ignore: Deno.build.os !== "linux",
  async fn(t) {
    await using home = await tempHome();
    await using cwd = await tempDir("fw-mcplist-cwd-");
    const log = join(cwd.path, "starts.log");
    const dir = await writeHarness(join(cwd.path, "harnesses"), "listed", {
      model: scripted([{ text: "ok" }]),
      mcp_servers: [await fixtureServer({ START_LOG: log }, { tools: ["echo"] })],
    });
    await trustFolder(dir);
    await using wb = await startWorkbenchProcess({ home: home.path, cwd: cwd.path });
    const path = `${wb.url}/api/harnesses/listed/mcp`;

    await t.step("GET (an <img> on any site) starts nothing", async () => {
      const res = await fetch(path);
      const body = await res.json();
      assert.equal(res.status, 405, JSON.stringify(body));
      assert.equal(body.ok, false);
      assert.equal(await starts(log), 0);
    });

    await t.step("a POST from another site is refused before anything starts", async () => {
      const res = await fetch(path, { method: "POST", headers: { origin: "http://evil.example" } });
      const body = await res.json();
      assert.equal(res.status, 403, JSON.stringify(body));
      assert.equal(body.error.kind, "forbidden");
      assert.equal(await starts(log), 0);
    });

    await t.step("the workbench's own POST lists the tools", async () => {
      const res = await fetch(path, { method: "POST", headers: { origin: wb.url } });
      const body = await res.json();
      assert.equal(res.status, 200, JSON.stringify(body));
      assert.deepEqual(body.data.servers, [{
        server: "fixture",
        tools: ["fixture__echo"],
        warnings: [],
      }]);
      assert.equal(await starts(log), 1);
    });

    await t.step("listings asked for at once start the servers once", async () => {
      const loaded = await loadSpec(dir);
      const before = await starts(log);
      const all = await Promise.all([1, 2, 3].map(() => listServerTools(dir, loaded.spec, true)));
      for (const listed of all) assert.deepEqual(listed, all[0]);
      assert.deepEqual(all[0]![0]!.tools, ["fixture__echo"]);
      assert.equal(await starts(log) - before, 1);
    });
  },
});
