/**
 * Live runs in Chromium: run a harness from the Run panel, see it pulse in the Runs list with its
 * mode, steer it from the steer box (queue, edit, delete), switch its mode from Trace, and see the
 * delivered message and the control events in the Trace, with no page errors. Screenshots at 1280
 * and 1000 px go to tests/.artifacts/live-run/.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { launchBrowser, openPage } from "../helpers/browser.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir } from "../helpers/temp.ts";
import { startWorkbenchProcess } from "../helpers/workbench.ts";

Deno.test("live run in the workbench: Run panel, steer box, mode switch, control events", async (t) => {
  await using home = await tempDir("fw-lr-home-");
  await using cwd = await tempDir("fw-lr-cwd-");
  await writeHarness(join(cwd.path, "harnesses"), "steer", {
    name: "Steer me",
    model: scripted([
      // Turn 1 takes its time: the test steers and switches the mode meanwhile.
      { tool_calls: [{ name: "list_files", arguments: {} }], delay_ms: 5000 },
      { text: "Bonjour, en français.", delay_ms: 1500 },
    ]),
    tools: [{ builtin: "list_files" }],
    playbooks: [
      { name: "draft", default: true, instructions: "Draft quickly." },
      { name: "review", instructions: "Review strictly, in French." },
    ],
  }, { "inputs/question.txt": "What is in this folder?\n" });
  await using wb = await startWorkbenchProcess({ home: home.path, cwd: cwd.path });
  await using tb = await launchBrowser();
  const { page } = tb;
  const shot = (name: string) => tb.screenshot("live-run", name);
  let runId = "";

  await t.step(
    "the Run button opens the Run panel; Run starts the run and opens its trace",
    async () => {
      await openPage(page, `${wb.url}/h/steer`);
      await page.getByTestId("run-button").click();
      await page.waitForURL(/\/h\/steer\/trace/);
      const input = page.locator("#run-input");
      await input.waitFor();
      assert.equal(await page.evaluate(() => document.activeElement?.id), "run-input");
      await page.locator('select[name="input_file"]').selectOption("inputs/question.txt");
      await input.fill("Look around, please.");
      await shot("run-panel-1280");
      await page.getByTestId("run-submit").click();
      await page.waitForURL(/[?&]run=run_/);
      runId = new URL(page.url()).searchParams.get("run")!;
      await page.getByTestId("run-switches").waitFor();
    },
  );

  await t.step("the Runs list shows the live run with a pulse and its mode", async () => {
    await page.keyboard.press("3");
    const live = page.getByTestId("live-run");
    await live.waitFor();
    assert.match(await live.innerText(), /draft/);
    await page.keyboard.press("4");
    await page.getByTestId("run-switches").waitFor();
  });

  await t.step("the steer box queues, edits and deletes messages while turn 1 runs", async () => {
    const box = page.getByTestId("steer-box");
    const steer = box.locator('textarea[name="steer"]');
    await steer.fill("Answer in English.");
    await steer.press("Enter");
    await box.locator('.steer-item[data-status="queued"]').first().waitFor();
    await steer.fill("Drop this one.");
    await steer.press("Enter");
    await page.waitForFunction(() =>
      document.querySelectorAll('.steer-item[data-status="queued"]').length === 2
    );
    // Edit the first in place, delete the second.
    await box.locator(".steer-item.queued .steer-text").first().click();
    const edit = box.locator('input[name="steer-edit"]');
    await edit.fill("Answer in French.");
    await edit.press("Enter");
    await box.locator(".steer-item.queued", { hasText: "Answer in French." }).waitFor();
    await box.locator(".steer-item.queued", { hasText: "Drop this one." })
      .getByRole("button", { name: "Delete the queued message" }).click();
    await page.waitForFunction(() =>
      document.querySelectorAll('.steer-item[data-status="queued"]').length === 1
    );
    await shot("steer-queued-1280");
  });

  await t.step("the mode switches from Trace's header", async () => {
    await page.locator('select[aria-label="Mode of the run"]').selectOption("review");
    await page.getByText("Switching to review").waitFor();
  });

  await t.step("at the boundary the message is delivered and the mode shows review", async () => {
    const delivered = page.locator('.steer-item[data-status="delivered"]', {
      hasText: "Answer in French.",
    });
    await delivered.waitFor({ timeout: 20_000 });
    assert.match(await delivered.innerText(), /turn 2/);
    await page.waitForFunction(() =>
      (document.querySelector('select[aria-label="Mode of the run"]') as HTMLSelectElement | null)
        ?.value === "review"
    );
    await page.setViewportSize({ width: 1000, height: 800 });
    await shot("steer-delivered-1000");
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  await t.step("when it ends, the Controls filter shows the control events", async () => {
    await page.locator("a[download]").waitFor({ timeout: 20_000 });
    await page.locator('.type-filters [data-group="controls"]').click();
    await page.waitForURL(/types=/);
    await page.waitForFunction(() => {
      const shown = [...document.querySelectorAll(".event-list .ev-type")].map((x) =>
        x.textContent
      );
      return shown.includes("steering_delivered") && shown.includes("playbook_changed");
    });
    const types = await page.locator(".event-list .ev-type").allInnerTexts();
    assert.deepEqual(types, ["steering_delivered", "playbook_changed", "system_changed"]);
    // The delivered message stays on the finished run, read-only.
    const delivered = page.locator('.steer-item[data-status="delivered"]');
    assert.equal(await delivered.count(), 1);
    assert.equal(await page.locator('textarea[name="steer"]').count(), 0);
    await shot("controls-filter-1280");
    await page.setViewportSize({ width: 1000, height: 800 });
    await shot("controls-filter-1000");
  });

  await t.step("nothing failed in the page and nothing left 127.0.0.1", () => {
    assert.ok(runId.startsWith("run_"));
    assert.deepEqual(tb.errors, []);
    assert.deepEqual(tb.foreign, []);
  });
});
