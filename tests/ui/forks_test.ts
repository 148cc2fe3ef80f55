/**
 * Forks in Chromium: fork a run from Trace's "Fork here" (the name comes prefilled with a free slug),
 * find the fork nested under its parent in the rail, resume it from its page, and see the replayed
 * prefix dimmed above the "re-entered here" marker and the lineage, with no page errors.
 * Screenshots at 1280 and 1000 px go to tests/.artifacts/forks/.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { launchBrowser, openPage } from "../helpers/browser.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir } from "../helpers/temp.ts";
import { startWorkbenchProcess, workbenchCall } from "../helpers/workbench.ts";

Deno.test("forks in the workbench: fork from Trace, nested in the rail, resume, re-entry marker", async (t) => {
  await using home = await tempDir("fw-fk-home-");
  await using cwd = await tempDir("fw-fk-cwd-");
  await writeHarness(join(cwd.path, "harnesses"), "parent", {
    name: "Parent",
    model: scripted([
      { tool_calls: [{ name: "list_files", arguments: {} }] },
      { tool_calls: [{ name: "list_files", arguments: {} }] },
      { text: "parent done" },
    ]),
    tools: [{ builtin: "list_files" }],
  });
  await using wb = await startWorkbenchProcess({ home: home.path, cwd: cwd.path });
  const ran = await workbenchCall(wb, "POST", "/api/harnesses/parent/runs", { input: "Look" });
  assert.equal(ran.json.data.status, "success", JSON.stringify(ran.json));
  const parentRun: string = ran.json.data.run_id;
  await using tb = await launchBrowser();
  const { page } = tb;
  const shot = (name: string) => tb.screenshot("forks", name);

  await t.step("Fork here on the second model call, with the suggested name", async () => {
    await openPage(page, `${wb.url}/h/parent/trace?run=${parentRun}`);
    const forkButtons = page.getByTestId("fork-here");
    await forkButtons.first().waitFor();
    assert.equal(await forkButtons.count(), 3, "one per model call");
    await forkButtons.nth(1).click();
    const name = page.locator("#fork-name");
    await page.waitForFunction(() =>
      (document.getElementById("fork-name") as HTMLInputElement | null)?.value === "parent-fork"
    );
    assert.equal(await page.evaluate(() => document.activeElement?.id), "fork-name");
    await page.locator('input[name="fork-model"]').fill("scripted:branch-model");
    await shot("fork-form-1280");
    await name.press("Enter");
    await page.waitForURL(/\/h\/parent-fork(\?|$)/);
  });

  await t.step(
    "the fork is nested under its parent in the rail, and its page offers Resume",
    async () => {
      const nested = page.locator(
        '.tree li:has(> [data-harness="parent"]) [role="group"] [data-harness="parent-fork"]',
      );
      await nested.waitFor();
      const bar = page.getByTestId("fork-bar");
      await bar.waitFor();
      assert.match(await bar.innerText(), /Fork of parent at seq \d+/);
    },
  );

  await t.step(
    "Resume opens the new run's trace: prefix dimmed, re-entry marked, lineage",
    async () => {
      await page.getByTestId("resume").click();
      await page.waitForURL(/\/h\/parent-fork\/trace\?.*run=run_/);
      const marker = page.getByTestId("reentry-marker");
      await marker.waitFor();
      await page.locator("a[download]").waitFor({ timeout: 20_000 });
      const replayed = await page.locator(".event-row.replayed").count();
      assert.ok(replayed >= 4, `${replayed} replayed rows`);
      assert.match(await page.locator(".event-row.reentry .ev-type").innerText(), /run_started/);
      const lineage = page.getByTestId("lineage");
      await lineage.waitFor();
      assert.match(await lineage.innerText(), /Forked from\s+parent/);
      await shot("resumed-1280");
      await page.setViewportSize({ width: 1000, height: 800 });
      await shot("resumed-1000");
    },
  );

  await t.step("the parent run's lineage lists the fork", async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await openPage(page, `${wb.url}/h/parent/trace?run=${parentRun}`);
    const lineage = page.getByTestId("lineage");
    await lineage.waitFor();
    assert.match(await lineage.innerText(), /fork at seq \d+\s+parent-fork/);
  });

  await t.step("nothing failed in the page and nothing left 127.0.0.1", () => {
    assert.deepEqual(tb.errors, []);
    assert.deepEqual(tb.foreign, []);
  });
});
