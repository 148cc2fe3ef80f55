/**
 * Spec drift in the workbench, in Chromium: when the hive records a newer spec version for the
 * harness's id than its folder holds (a proposal applied through another host's process), the
 * Overview says so beside the spec version, naming the newest; once the folder is updated the badge
 * goes. The same answer as `/health`'s `spec_drift` (lib/harness_spec/drift.ts).
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { closeHives, openHive } from "../../lib/hive/open.ts";
import { recordSpecVersion } from "../../lib/hive/spec_versions.ts";
import { launchBrowser, openPage } from "../helpers/browser.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir, tempHome } from "../helpers/temp.ts";
import { startWorkbenchProcess } from "../helpers/workbench.ts";

Deno.test("the Overview shows spec drift while the hive records a newer version", async (t) => {
  await using home = await tempHome();
  await using cwd = await tempDir("fw-drift-ui-cwd-");
  const dir = await writeHarness(join(cwd.path, "harnesses"), "drifted", {
    model: scripted([{ text: "hi" }]),
  });
  const spec = join(dir, "harness.yaml");
  const minuteAgo = new Date(Date.now() - 60_000);
  await Deno.utime(spec, minuteAgo, minuteAgo);
  await using wb = await startWorkbenchProcess({ home: home.path, cwd: cwd.path });
  await using tb = await launchBrowser();
  const { page } = tb;
  const newest = "9c01" + "ab".repeat(30);

  await t.step("no badge while the folder holds the newest version", async () => {
    await openPage(page, `${wb.url}/h/drifted`);
    await page.getByTestId("overview").waitFor();
    assert.equal(await page.getByTestId("spec-drift").count(), 0);
  });

  await t.step("a newer version recorded by another host: the badge names it", async () => {
    recordSpecVersion(openHive(), {
      harness_id: "drifted",
      harness_dir: "/srv/another-host/drifted",
      version: newest,
      yaml: "id: drifted\n",
      source: "proposal",
    });
    closeHives();
    await openPage(page, `${wb.url}/h/drifted`);
    const badge = page.getByTestId("spec-drift");
    await badge.waitFor();
    assert.match(
      await badge.innerText(),
      new RegExp(`behind the hive: newest ${newest.slice(0, 12)}`),
    );
    assert.match((await badge.getAttribute("title"))!, new RegExp(newest));
    await tb.screenshot("spec_drift", "overview-drift");
  });

  await t.step("the folder updated: the badge goes", async () => {
    const now = new Date();
    await Deno.utime(spec, now, now);
    await openPage(page, `${wb.url}/h/drifted`);
    await page.getByTestId("overview").waitFor();
    assert.equal(await page.getByTestId("spec-drift").count(), 0);
  });

  await t.step("nothing failed in the page and nothing left 127.0.0.1", () => {
    assert.deepEqual(tb.errors, []);
    assert.deepEqual(tb.foreign, []);
  });
});
