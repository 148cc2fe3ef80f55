/**
 * The waterfall of a run of 10,000 journal events, in Chromium: the time from the click that shows
 * it to the frame after it is painted (the spans worked out from the events, the rows in view drawn,
 * laid out and painted), and the time to scroll it to its last row. The budget is 300 ms to draw.
 *
 * @module
 */

import { chromium } from "playwright-core";
import { setFrameworkHome } from "../lib/paths.ts";
import { startRun } from "../lib/runs/service.ts";
import { startWorkbench } from "../routes/workbench_server.ts";
import { CHROMIUM_FLAGS, chromiumPath } from "../tests/helpers/browser.ts";
import { fmt, report, summarize } from "./measure.ts";
import { benchTempDir } from "./temp_dirs.ts";
import { longRunHarness } from "./workbench_pages_bench.ts";

/** The budget for drawing the waterfall of 10,000 events. */
const BUDGET_MS = 300;

/** Runs the benchmark. */
export async function run(): Promise<void> {
  const root = await benchTempDir("fw-bench-wf-");
  setFrameworkHome(`${root}/home`);
  const long = await longRunHarness(`${root}/harnesses`, 10_000);
  const longRun = await (await startRun(long, { input: "go" })).result;
  const events = (await Deno.readTextFile(`${long}/.framework/traces/${longRun.run_id}.jsonl`))
    .split("\n").length - 1;
  const wb = await startWorkbench({
    port: 0,
    harnessesDir: `${root}/harnesses`,
    copilotModel: undefined,
    warn: () => {},
  });
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_FLAGS });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${wb.url}/h/long/trace?run=${longRun.run_id}`);
    await page.waitForSelector('[data-testid="trace"][data-complete="true"]', {
      timeout: 120_000,
    });
    await page.waitForSelector(".wf-bar");
    const drawn: number[] = [];
    const scrolled: number[] = [];
    let rows = 0;
    let bars = 0;
    for (let i = 0; i < 12; i++) {
      const [draw, scroll] = await page.evaluate(async () => {
        const frame = () => new Promise<void>((r) => requestAnimationFrame(() => setTimeout(r, 0)));
        const toggle = document.querySelector<HTMLButtonElement>(
          '[data-testid="waterfall-toggle"]',
        )!;
        toggle.click(); // hide
        await frame();
        const t0 = performance.now();
        toggle.click(); // show: the spans of every event, the rows in view
        while (!document.querySelector(".wf-bar")) await new Promise((r) => setTimeout(r, 0));
        await frame();
        const t1 = performance.now();
        const list = document.querySelector(".wf-rows")!;
        list.scrollTop = list.scrollHeight;
        await frame();
        await frame();
        return [t1 - t0, performance.now() - t1];
      });
      if (i >= 2) {
        drawn.push(draw);
        scrolled.push(scroll);
      }
    }
    rows = await page.locator(".wf-row").count();
    bars = Number(
      await page.locator(".wf-space").evaluate((el) =>
        Math.round(parseFloat((el as HTMLElement).style.height) / 24)
      ),
    );
    const p50 = summarize(drawn).p50_ms;
    report(`waterfall of a ${events.toLocaleString()}-event run, in Chromium`, {
      "draw p50": fmt(p50, " ms"),
      "draw max": fmt(Math.max(...drawn), " ms"),
      "scroll to end p50": fmt(summarize(scrolled).p50_ms, " ms"),
      "bars in all": String(bars),
      "rows in DOM": String(rows),
      [`within ${BUDGET_MS} ms`]: Math.max(...drawn) <= BUDGET_MS ? "yes" : "NO",
    });
  } finally {
    await browser.close();
    await wb.close();
  }
}
