/**
 * Overview's charts in Chromium, over a seeded week of runs: runs per day by status, cost per run,
 * and the p50/p95 durations per day. Each chart is an image labelled with what it shows, and the
 * table behind it holds the figures worked out here from the seeded runs (and the API answers the
 * same). Screenshots at 1280 and 1000 px go to tests/.artifacts/charts/.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { openHive } from "../../lib/hive/open.ts";
import { finishRun, insertRun } from "../../lib/hive/runs.ts";
import { RUN_STATUSES, type RunStatus } from "../../lib/run_types.ts";
import { startRun } from "../../lib/runs/service.ts";
import { formatCost, formatDuration } from "../../ui/format.ts";
import { launchBrowser, openPage } from "../helpers/browser.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir, tempHome } from "../helpers/temp.ts";
import { startWorkbenchProcess, workbenchCall } from "../helpers/workbench.ts";

interface Seeded {
  day: string;
  status: RunStatus;
  cost: number;
  duration: number;
}

/** A week of runs: day i has i + 1 runs, of varied statuses, costs and durations. */
function week(now: number): Seeded[] {
  const out: Seeded[] = [];
  for (let d = 6; d >= 0; d--) {
    const day = new Date(now - d * 86_400_000).toISOString().slice(0, 10);
    for (let k = 0; k <= 6 - d; k++) {
      out.push({
        day,
        status: RUN_STATUSES[(k + d) % 3 === 0 ? 0 : (k + d) % 5]!,
        cost: Math.round((0.001 + 0.0005 * k + 0.0001 * d) * 1e9) / 1e9,
        duration: 200 + 150 * ((k * 7 + d * 3) % 11),
      });
    }
  }
  return out;
}

/** The figures of one day, worked out from the seeded runs. */
function figures(runs: Seeded[]) {
  const ds = runs.map((r) => r.duration).sort((a, b) => a - b);
  const n = ds.length;
  return {
    cost: runs.reduce((s, r) => s + r.cost, 0) / n,
    p50: ds[Math.floor((n - 1) / 2)]!,
    p95: ds[Math.ceil(0.95 * n) - 1]!,
  };
}

Deno.test("Overview's charts show the hive's figures for a seeded week", async (t) => {
  await using home = await tempHome();
  await using cwd = await tempDir("fw-ch-cwd-");
  const dir = await writeHarness(join(cwd.path, "harnesses"), "w", {
    name: "Weekly",
    model: scripted([{ text: "ok" }]),
  });
  // One real run makes the harness known with a spec version; the week is seeded beside it.
  const real = await (await startRun(dir, { input: "hi" })).result;
  const hive = openHive();
  hive.exec(`DELETE FROM runs WHERE run_id = '${real.run_id}'`);
  const now = Date.now();
  const seeded = week(now);
  seeded.forEach((r, i) => {
    const runId = `run_seed${String(i).padStart(4, "0")}`;
    const started = `${r.day}T00:00:${String(i % 60).padStart(2, "0")}.000Z`;
    insertRun(hive, {
      run_id: runId,
      harness_id: "w",
      harness_dir: dir,
      input: "seeded",
      started_at: started,
      spec_version: real.spec_version,
      trace_path: join(dir, "traces", `${runId}.jsonl`),
    });
    finishRun(hive, {
      run_id: runId,
      harness_id: "w",
      status: r.status,
      output: "",
      cost_usd: r.cost,
      turns: 1,
      started_at: started,
      ended_at: new Date(Date.parse(started) + r.duration).toISOString(),
      duration_ms: r.duration,
      spec_version: real.spec_version,
      failure_signature: r.status === "success" ? null : `${r.status}:seeded`,
      ...(r.status === "success" ? {} : { error: { reason: "seeded", message: "seeded" } }),
    }, { head_hash: "0".repeat(64), events: 0 });
  });
  const days = [...new Set(seeded.map((r) => r.day))];
  assert.equal(days.length, 7);

  await using wb = await startWorkbenchProcess({ home: home.path, cwd: cwd.path });
  await using tb = await launchBrowser();
  const { page } = tb;

  await t.step("the API answers the seeded figures", async () => {
    const r = await workbenchCall(wb, "GET", "/api/harnesses/w/charts?days=7");
    assert.equal(r.status, 200, JSON.stringify(r.json));
    const c = r.json.data;
    assert.deepEqual(c.runs_per_day.map((d: { day: string }) => d.day), days);
    for (const [i, day] of days.entries()) {
      const runs = seeded.filter((r) => r.day === day);
      for (const s of RUN_STATUSES) {
        assert.equal(c.runs_per_day[i].by_status[s], runs.filter((r) => r.status === s).length);
      }
      const f = figures(runs);
      assert.equal(c.cost_duration[i].runs, runs.length);
      assert.ok(Math.abs(c.cost_duration[i].cost_per_run_usd - f.cost) < 1e-9);
      assert.equal(c.cost_duration[i].p50_duration_ms, f.p50, `p50 of ${day}`);
      assert.equal(c.cost_duration[i].p95_duration_ms, f.p95, `p95 of ${day}`);
    }
  });

  await t.step("each chart is a labelled image whose table holds the same figures", async () => {
    await openPage(page, `${wb.url}/h/w`);
    const charts = page.getByTestId("overview-charts");
    await charts.waitFor();
    for (const id of ["runs-per-day", "cost-per-run", "duration"]) {
      const label = await charts.locator(`[data-chart="${id}"] svg[role="img"]`)
        .getAttribute("aria-label");
      assert.ok(label && label.length > 10, `${id}: ${label}`);
    }
    const cells = (id: string) =>
      page.getByTestId(`${id}-table`).locator("tbody tr").evaluateAll((rows) =>
        rows.map((r) => [...r.querySelectorAll("td")].map((td) => td.textContent))
      );
    // The window is the last 30 days: the seeded week is its end.
    assert.deepEqual(
      await cells("runs-per-day"),
      days.map((day) => {
        const runs = seeded.filter((r) => r.day === day);
        return [
          day,
          ...RUN_STATUSES.map((s) => String(runs.filter((r) => r.status === s).length)),
          String(runs.length),
        ];
      }),
    );
    const byDay = days.map((day) => ({ day, f: figures(seeded.filter((r) => r.day === day)) }));
    assert.deepEqual(
      await cells("cost-per-run"),
      byDay.map(({ day, f }) => [day, formatCost(f.cost)]),
    );
    assert.deepEqual(
      await cells("duration"),
      byDay.map(({ day, f }) => [day, formatDuration(f.p50), formatDuration(f.p95)]),
    );
    // One bar segment per (day, status) that has runs.
    const segments = days.flatMap((day) =>
      RUN_STATUSES.filter((s) =>
        seeded.some((r) => r.day === day && r.status === s)
      )
    ).length;
    assert.equal(
      await page.locator('[data-chart="runs-per-day"] svg rect').count(),
      segments,
    );
    await page.getByTestId("overview-charts").scrollIntoViewIfNeeded();
    await tb.screenshot("charts", "overview-1280");
    await page.setViewportSize({ width: 1000, height: 800 });
    await page.getByTestId("overview-charts").scrollIntoViewIfNeeded();
    await tb.screenshot("charts", "overview-1000");
  });

  await t.step("nothing failed in the page and nothing left 127.0.0.1", () => {
    assert.deepEqual(tb.errors, []);
    assert.deepEqual(tb.foreign, []);
  });
});
