/**
 * Remote (A2A) peers in Chromium: a run of A that handed a task to B, served by a real control plane,
 * shows the hand-off line with a link to B's task on B's control plane, and the Overview lists B's
 * URL marked A2A with its fitness (this hive's record of hand-offs to it).
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { startRun } from "../../lib/runs/service.ts";
import { trustFolder } from "../../lib/trust/store.ts";
import { launchBrowser, openPage } from "../helpers/browser.ts";
import { memberToken, startControlPlane } from "../helpers/control_plane.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir, tempHome } from "../helpers/temp.ts";
import { startWorkbenchProcess } from "../helpers/workbench.ts";

Deno.test("remote peers in the workbench: Overview fitness, hand-off link to the remote task", async (t) => {
  await using home = await tempHome();
  await using homeB = await tempDir("fw-a2a-ui-b-");
  await using cwd = await tempDir("fw-a2a-ui-cwd-");
  const root = join(cwd.path, "harnesses");
  const b = await writeHarness(join(cwd.path, "remote"), "b", {
    model: scripted([{ text: "b: 12" }]),
  });
  await using planeB = await startControlPlane(b, { home: homeB.path });
  const token = (await memberToken(b, homeB.path, "a", ["run"])).token;
  const a = await writeHarness(root, "a", {
    model: scripted([
      { tool_calls: [{ name: "delegate", arguments: { task: "count", peer: planeB.url } }] },
      { text: "B counted 12" },
    ]),
    delegation: { peers: [{ a2a: planeB.url, token_env: "FW_UI_B_TOKEN" }] },
  });
  await trustFolder(a);
  Deno.env.set("FW_UI_B_TOKEN", token);
  let result;
  try {
    result = await (await startRun(a, { input: "How many?" })).result;
  } finally {
    Deno.env.delete("FW_UI_B_TOKEN");
  }
  assert.equal(result.status, "success");
  const taskId = result.delegations![0]!.run_id;
  await using wb = await startWorkbenchProcess({ home: home.path, cwd: cwd.path });
  await using tb = await launchBrowser();
  const { page } = tb;

  await t.step("the hand-off links to the remote task", async () => {
    await openPage(page, `${wb.url}/h/a/trace?run=${result.run_id}`);
    const handoff = page.getByTestId("handoff");
    await handoff.waitFor();
    assert.match(await handoff.innerText(), new RegExp(`${planeB.url}\\s+success`));
    const link = page.getByTestId("remote-task");
    assert.equal(await link.getAttribute("href"), `${planeB.url}/trace/${taskId}`);
    assert.match(await link.innerText(), /\(A2A\)/);
  });

  await t.step("Overview lists the remote peer with its fitness", async () => {
    await openPage(page, `${wb.url}/h/a`);
    const peers = page.getByTestId("peers");
    await peers.waitFor();
    const line = await peers.locator(`[data-peer="${planeB.url}"]`).innerText();
    assert.match(line, /A2A/);
    assert.match(line, /100% over 1 hand-offs/);
    await tb.screenshot("a2a", "overview-peers");
  });

  await t.step("nothing failed in the page and nothing left 127.0.0.1", () => {
    assert.deepEqual(tb.errors, []);
    assert.deepEqual(tb.foreign, []);
  });
});
