/**
 * The rail groups harnesses by folder containment in Chromium: a harness whose folder lies inside
 * another's is nested under it (at any depth, under the deepest container), whatever their names and
 * ids say; siblings stay at the top. Screenshots go to tests/.artifacts/rail/.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { launchBrowser, openPage } from "../helpers/browser.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir } from "../helpers/temp.ts";
import { startWorkbenchProcess } from "../helpers/workbench.ts";

Deno.test("rail: harnesses nest by folder containment, not by name", async () => {
  await using home = await tempDir("fw-rail-home-");
  await using cwd = await tempDir("fw-rail-cwd-");
  const harnesses = join(cwd.path, "harnesses");
  const model = scripted([{ text: "ok" }]);
  // "zeta" holds "alpha-tool" a folder down, which holds "beta-part"; "zeta-sibling" is a sibling whose
  // name would put it under zeta if names decided.
  const zeta = await writeHarness(harnesses, "zeta", { name: "Zeta", model });
  const alpha = await writeHarness(join(zeta, "tools"), "alpha-tool", {
    name: "Alpha tool",
    model,
  });
  await writeHarness(alpha, "beta-part", { name: "Beta part", model });
  await writeHarness(harnesses, "zeta-sibling", { name: "Zeta sibling", model });
  await using wb = await startWorkbenchProcess({ home: home.path, cwd: cwd.path });
  await using tb = await launchBrowser();
  const { page } = tb;
  await openPage(page, `${wb.url}/`);
  const tree = page.getByRole("tree", { name: "Harnesses by folder" });
  await tree.waitFor();

  // Each item's chain of containing items, read from the DOM.
  const chains = await tree.evaluate((root) =>
    [...root.querySelectorAll("a[data-harness]")].map((a) => {
      const chain: string[] = [];
      for (
        let li = a.closest("li");
        li && root.contains(li);
        li = li.parentElement!.closest("li")
      ) {
        chain.unshift(li.querySelector(":scope > a")!.getAttribute("data-harness")!);
      }
      return chain.join(" > ");
    })
  );
  assert.deepEqual(chains.sort(), [
    "zeta",
    "zeta > alpha-tool",
    "zeta > alpha-tool > beta-part",
    "zeta-sibling",
  ]);
  const item = page.getByRole("treeitem").filter({ has: page.locator('[data-harness="zeta"]') });
  assert.equal(await item.first().getAttribute("aria-expanded"), "true");
  await tb.screenshot("rail", "nesting-1280");
  await page.setViewportSize({ width: 1000, height: 800 });
  await tb.screenshot("rail", "nesting-1000");
  assert.deepEqual(tb.errors, []);
  assert.deepEqual(tb.foreign, []);
});
