/**
 * The Trace tab of a run that is still going, in Chromium: events arrive as they are written, and
 * "Stop now" ends it; the page then shows the finished, verified journal.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { launchBrowser, openPage } from "../helpers/browser.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir } from "../helpers/temp.ts";
import { startStreamedRun, startWorkbenchProcess } from "../helpers/workbench.ts";

Deno.test("trace of a live run: events arrive as written and Stop now ends it", async () => {
  await using home = await tempDir("fw-ui-live-home-");
  await using cwd = await tempDir("fw-ui-live-cwd-");
  await writeHarness(join(cwd.path, "harnesses"), "slow", {
    name: "Slow",
    instructions: "List the files, slowly.",
    // The first answer comes after 1.5 s (a tool call), the second never in time.
    model: scripted([
      { tool_calls: [{ name: "list_files", arguments: {} }], delay_ms: 1500 },
      { text: "done", delay_ms: 30_000 },
    ]),
    tools: [{ builtin: "list_files" }],
    limits: { timeout_s: 60 },
  });
  await using wb = await startWorkbenchProcess({ home: home.path, cwd: cwd.path });
  await using tb = await launchBrowser();
  const { page } = tb;

  // The rest of the stream is read to its end in the background.
  const { runId, frames: drained } = await startStreamedRun(wb, "slow", "go");

  await openPage(page, `${wb.url}/h/slow/trace?run=${runId}`);
  await page.locator('.trace-run [data-status="running"]').waitFor();
  assert.match(await page.locator('[data-integrity="live"]').innerText(), /Still being written/);
  assert.equal(await page.getByRole("button", { name: "Stop", exact: true }).count(), 1);
  assert.equal(await page.getByRole("button", { name: "Stop now" }).count(), 1);
  // Written after the page was served: the tool call and its result, then the second model call.
  await page.locator(".event-row .type-tool_result").waitFor();
  await page.waitForFunction(() =>
    document.querySelectorAll(".event-row .type-model_call").length === 2
  );
  await tb.screenshot("ui", "trace-live");

  // The second model call would answer in 30 s: Stop now aborts it rather than wait.
  await page.getByRole("button", { name: "Stop now" }).click();
  await page.locator('.trace-run [data-status="error"]').waitFor();
  await page.locator('[data-integrity="ok"]').waitFor();
  await page.getByRole("link", { name: "Export journal" }).waitFor();
  assert.match(await page.locator(".failure").innerText(), /error:stopped/);
  const types = await page.locator(".event-list .ev-type").allInnerTexts();
  assert.deepEqual(types.slice(-2), ["run_stopped", "run_finished"]);
  assert.deepEqual((await drained).slice(-1), ["run_result"]);
  assert.deepEqual(tb.errors, []);
  assert.deepEqual(tb.foreign, []);
});
