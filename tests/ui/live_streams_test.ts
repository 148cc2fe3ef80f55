/**
 * Live runs and the browser's connections, in Chromium: ten runs started from the Run panel of one
 * tab keep at most one event stream open between them (a browser opens only six HTTP/1.1 connections
 * per host), so the tab's other requests still answer while they are live; the Runs list shows the
 * live runs with their mode uncut and updates each one when it ends; the run chooser's columns line
 * up; once the runs have ended no stream of the tab is left open; and a run of another process (a
 * terminal) that ends while the list is shown is updated too. Screenshots at 1280 and 1000 px
 * go to tests/.artifacts/live-streams/.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import type { Page, Request } from "playwright-core";
import { launchBrowser, openPage } from "../helpers/browser.ts";
import { runCli } from "../helpers/cli.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir } from "../helpers/temp.ts";
import { startWorkbenchProcess } from "../helpers/workbench.ts";

const RUNS = 10;

/** Follows the tab's server-sent event streams: open now, and the most open at once. */
function watchStreams(page: Page) {
  const open = new Set<Request>();
  let most = 0;
  page.on("response", (r) => {
    if ((r.headers()["content-type"] ?? "").startsWith("text/event-stream")) {
      open.add(r.request());
      most = Math.max(most, open.size);
    }
  });
  page.on("requestfinished", (r) => void open.delete(r));
  page.on("requestfailed", (r) => void open.delete(r));
  return {
    open: () => [...open].map((r) => r.url()),
    most: () => most,
  };
}

/** Waits until `check` holds (polling; the step's own timeout bounds it). */
async function until(check: () => boolean | Promise<boolean>, what: string, ms = 20_000) {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`Still waiting: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

Deno.test("ten live runs in one tab: one stream, other requests answer, the Runs list follows them", async (t) => {
  await using home = await tempDir("fw-ls-home-");
  await using cwd = await tempDir("fw-ls-cwd-");
  await writeHarness(join(cwd.path, "harnesses"), "busy", {
    name: "Busy",
    model: scripted([
      { tool_calls: [{ name: "list_files", arguments: {} }], delay_ms: 200 },
      // The second answer would come after two minutes: the test stops the runs before that.
      { text: "done", delay_ms: 120_000 },
    ]),
    tools: [{ builtin: "list_files" }],
    limits: { timeout_s: 300 },
    playbooks: [
      { name: "careful", default: true, instructions: "Check twice." },
      { name: "quick", instructions: "Be quick." },
    ],
  });
  // A run of another process (a terminal) that the Runs list shows while it ends.
  const otherDir = await writeHarness(join(cwd.path, "harnesses"), "other", {
    name: "Other",
    model: scripted([{ text: "done from a terminal", delay_ms: 8000 }]),
  });
  await using wb = await startWorkbenchProcess({ home: home.path, cwd: cwd.path });
  await using tb = await launchBrowser();
  const { page } = tb;
  const streams = watchStreams(page);
  const shot = (name: string) => tb.screenshot("live-streams", name);
  const runIds: string[] = [];
  const statusOf = async (runId: string) => {
    const res = await fetch(`${wb.url}/api/runs/${runId}?limit=1`);
    return (await res.json()).data.run.status as string;
  };

  await t.step("ten runs start from the Run panel of one tab, each opening its trace", async () => {
    await openPage(page, `${wb.url}/h/busy/trace`);
    for (let i = 1; i <= RUNS; i++) {
      const input = page.locator("#run-input");
      await input.fill(`Run number ${i}`);
      await page.getByTestId("run-submit").click();
      await page.waitForURL(/[?&]run=run_/);
      runIds.push(new URL(page.url()).searchParams.get("run")!);
      await page.locator('.trace-run [data-status="running"]').waitFor();
      await page.goBack();
      await page.locator("#run-input").waitFor();
    }
    assert.equal(new Set(runIds).size, RUNS);
  });

  await t.step("the run chooser lists them with their times in one column", async () => {
    await page.waitForFunction(
      (n) => document.querySelectorAll(".pick-list .pick").length === n,
      RUNS,
    );
    for (const width of [1280, 1000]) {
      await page.setViewportSize({ width, height: 800 });
      const lefts = await page.locator(".pick-list .pick time").evaluateAll((ts) =>
        ts.map((t) => Math.round(t.getBoundingClientRect().left))
      );
      assert.equal(lefts.length, RUNS);
      assert.equal(new Set(lefts).size, 1, `time column at ${width} px: ${lefts.join(", ")}`);
      const cut = await page.locator(".pick-list .pick time").evaluateAll((ts) =>
        ts.filter((t) => {
          const r = t.getBoundingClientRect();
          const row = t.closest(".pick")!.getBoundingClientRect();
          return r.right > row.right || t.scrollWidth > t.clientWidth + 1;
        }).length
      );
      assert.equal(cut, 0, `no time cut at ${width} px`);
      await shot(`chooser-${width}`);
    }
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  await t.step("the Runs list shows ten live runs, each mode label whole", async () => {
    await page.keyboard.press("3");
    await page.waitForFunction(
      (n) => document.querySelectorAll('[data-testid="live-run"]').length === n,
      RUNS,
    );
    for (const width of [1280, 1000]) {
      await page.setViewportSize({ width, height: 800 });
      const clipped = await page.locator('[data-testid="live-run"] .live-mode').evaluateAll((ls) =>
        ls.filter((l) => {
          const r = l.getBoundingClientRect();
          const cell = l.closest("td")!.getBoundingClientRect();
          return l.textContent !== "careful" || r.right > cell.right || r.width < 10;
        }).length
      );
      assert.equal(clipped, 0, `mode labels whole at ${width} px`);
      await shot(`runs-live-${width}`);
    }
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  await t.step("the Versions tab loads while the ten runs are live", async () => {
    await page.keyboard.press("5");
    await page.locator(".workspace-inner").getByText("No versions yet").waitFor();
    for (const id of runIds) assert.equal(await statusOf(id), "running", id);
  });

  await t.step("runs that end while the Runs list is shown are updated in it", async () => {
    await page.keyboard.press("3");
    await page.waitForFunction(
      (n) => document.querySelectorAll('[data-testid="live-run"]').length === n,
      RUNS,
    );
    for (const id of runIds) {
      const res = await fetch(`${wb.url}/api/runs/${id}/stop`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ now: true }),
      });
      assert.equal(res.status, 200);
      await res.body?.cancel();
    }
    await page.waitForFunction(
      (n) =>
        document.querySelectorAll('[data-testid="live-run"]').length === 0 &&
        document.querySelectorAll('.runs-table [data-status="error"]').length === n,
      RUNS,
      { timeout: 20_000 },
    );
    await shot("runs-ended-1280");
  });

  await t.step("no stream stays open for an ended run, and there were never many", async () => {
    await until(() => streams.open().length === 0, `streams still open: ${streams.open()}`);
    // The Run request's own stream and the tab's live stream (and, for a moment, the one it
    // replaces when the runs on screen change): never one per run.
    assert.ok(streams.most() <= 3, `at most 3 streams at once, saw ${streams.most()}`);
  });

  await t.step("a run of another process is updated too when it ends", async () => {
    const cli = runCli(["run", otherDir, "--input", "from a terminal", "--approve", "--json"], {
      home: home.path,
      cwd: cwd.path,
    });
    let runId = "";
    await until(async () => {
      const res = await fetch(`${wb.url}/api/harnesses/other/runs`);
      const first = (await res.json()).data.runs[0];
      runId = first?.run_id ?? "";
      return first?.status === "running";
    }, "the terminal's run to start");
    await openPage(page, `${wb.url}/h/other/runs`);
    const row = page.locator(`tr[data-run-id="${runId}"]`);
    await row.locator('[data-status="running"]').waitFor();
    await row.locator('[data-status="success"]').waitFor({ timeout: 30_000 });
    assert.equal((await cli).code, 0);
    await until(() => streams.open().length === 0, `streams still open: ${streams.open()}`);
  });

  await t.step("nothing failed in the page and nothing left 127.0.0.1", () => {
    assert.deepEqual(tb.errors, []);
    assert.deepEqual(tb.foreign, []);
  });
});
