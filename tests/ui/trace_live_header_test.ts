/**
 * The header of a live run's Trace, in Chromium: its cost and turns come from the model calls as
 * their events arrive (not `$0` and `0` until the run ends), its duration ticks, the Runs list shows
 * the same figures, and when the run is stopped the header shows the run's own final figures.
 * Screenshots at 1280 and 1000 px go to tests/.artifacts/live-header/.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { formatCost } from "../../ui/format.ts";
import { launchBrowser, openPage } from "../helpers/browser.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir } from "../helpers/temp.ts";
import { startWorkbenchProcess } from "../helpers/workbench.ts";

/** Milliseconds of a shown duration (`820 ms`, `1.2 s`, `3 m 05 s`), NaN for anything else. */
function msOf(text: string): number {
  const m = /(?:(\d+) m )?([\d.]+) (ms|s)$/.exec(text.trim());
  if (!m) return NaN;
  return Number(m[1] ?? 0) * 60_000 + Number(m[2]) * (m[3] === "ms" ? 1 : 1000);
}

const USAGE = { input_tokens: 1000, output_tokens: 500 }; // $0.02 a call at the price below

Deno.test("trace of a live run: cost and turns from its events, a ticking duration", async (t) => {
  await using home = await tempDir("fw-lh-home-");
  await using cwd = await tempDir("fw-lh-cwd-");
  await writeHarness(join(cwd.path, "harnesses"), "meter", {
    name: "Meter",
    model: scripted([
      { tool_calls: [{ name: "list_files", arguments: {} }], usage: USAGE, delay_ms: 100 },
      { tool_calls: [{ name: "list_files", arguments: {} }], usage: USAGE, delay_ms: 100 },
      // The third answer would take two minutes: the run is stopped during it.
      { text: "done", usage: USAGE, delay_ms: 120_000 },
    ], { pricing: { input_per_mtok: 10, output_per_mtok: 20 } }),
    tools: [{ builtin: "list_files" }],
    limits: { timeout_s: 300 },
  });
  await using wb = await startWorkbenchProcess({ home: home.path, cwd: cwd.path });
  await using tb = await launchBrowser();
  const { page } = tb;
  const shot = (name: string) => tb.screenshot("live-header", name);
  const stat = (name: string) => page.locator(`.trace-stats [data-stat="${name}"]`).innerText();
  const elapsed = async () => msOf(await stat("duration"));
  let runId = "";

  await t.step(
    "while the third model call runs, the header says two calls' cost, turn 3",
    async () => {
      await openPage(page, `${wb.url}/h/meter/trace`);
      await page.locator("#run-input").fill("Measure");
      await page.getByTestId("run-submit").click();
      await page.waitForURL(/[?&]run=run_/);
      runId = new URL(page.url()).searchParams.get("run")!;
      await page.waitForFunction(() => {
        const s = (n: string) =>
          document.querySelector(`.trace-stats [data-stat="${n}"]`)?.textContent ?? "";
        return s("cost").includes("$0.04") && /turns\s*3/.test(s("turns"));
      });
      // The journal has both model responses, and the run is still going.
      const view = await (await fetch(`${wb.url}/api/runs/${runId}`)).json();
      assert.equal(view.data.live, true);
      assert.equal(view.data.run.status, "running");
      const responses = view.data.events.filter((e: { type: string }) =>
        e.type === "model_response"
      );
      assert.deepEqual(
        responses.map((e: { payload: { cost_usd: number } }) => e.payload.cost_usd),
        [
          0.02,
          0.02,
        ],
      );
      await shot("live-1280");
      await page.setViewportSize({ width: 1000, height: 800 });
      await shot("live-1000");
      await page.setViewportSize({ width: 1280, height: 800 });
    },
  );

  await t.step("the duration ticks while the run goes on", async () => {
    const first = await elapsed();
    assert.ok(first >= 0, `a duration: ${await stat("duration")}`);
    // Waits (the step's deadline bounds it) until the shown duration has grown.
    const deadline = Date.now() + 15_000;
    while (!(await elapsed() > first)) {
      assert.ok(Date.now() < deadline, `the duration stayed at ${await stat("duration")}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  });

  await t.step("the Runs list shows the live run's cost and turns too", async () => {
    await page.keyboard.press("3");
    const row = page.locator(`tr[data-run-id="${runId}"]`);
    await row.locator('[data-testid="live-run"]').waitFor();
    // Its events come over the page's live stream: wait for them, then read the row.
    await page.waitForFunction((id) => {
      const cells = document.querySelectorAll(`tr[data-run-id="${id}"] td`);
      return cells[2]?.textContent === "$0.04" && cells[3]?.textContent === "3";
    }, runId);
    const cells = await row.locator("td").allInnerTexts();
    assert.equal(cells[2], "$0.04");
    assert.equal(cells[3], "3");
    assert.ok(msOf(cells[4]!) >= 0, `a duration: ${cells[4]}`);
    await page.keyboard.press("4");
    await page.locator(".trace-stats").waitFor();
  });

  await t.step("stopped, the header shows the run's own final figures", async () => {
    await page.getByRole("button", { name: "Stop now" }).click();
    await page.locator('.trace-run [data-status="error"]').waitFor();
    const row = (await (await fetch(`${wb.url}/api/runs/${runId}?limit=1`)).json()).data.run;
    assert.equal(row.turns, 3);
    assert.equal(row.cost_usd, 0.04);
    assert.match(await stat("cost"), new RegExp(`\\${formatCost(row.cost_usd)}$`));
    assert.match(await stat("turns"), /3$/);
    const fixed = await stat("duration");
    assert.match(fixed, /\d/);
    await shot("stopped-1280");
  });

  await t.step("nothing failed in the page and nothing left 127.0.0.1", () => {
    assert.deepEqual(tb.errors, []);
    assert.deepEqual(tb.foreign, []);
  });
});
