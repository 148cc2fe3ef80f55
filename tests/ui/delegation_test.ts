/**
 * Delegation in Chromium: a run of A that handed a task to B shows the hand-off line, C as a
 * referral with its record and why it was not used, the delegated share of the cost, the Delegation
 * filter and the Lineage entry; the hand-off links to the child, whose Lineage links back to A's run.
 * The Overview lists A's peers with their fitness. Screenshots go to tests/.artifacts/delegation/.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { startRun } from "../../lib/runs/service.ts";
import { trustFolder } from "../../lib/trust/store.ts";
import { launchBrowser, openPage } from "../helpers/browser.ts";
import { writeHarness } from "../helpers/harness.ts";
import { tempDir, tempHome } from "../helpers/temp.ts";
import { startStreamedRun, startWorkbenchProcess } from "../helpers/workbench.ts";

const PRICE = { input_per_mtok: 1, output_per_mtok: 1 };
const USAGE = { input_tokens: 500, output_tokens: 500 };

Deno.test("delegation in the workbench: hand-off, referral, cost share, filter, lineage", async (t) => {
  await using home = await tempHome();
  await using cwd = await tempDir("fw-dl-cwd-");
  const root = join(cwd.path, "harnesses");
  const model = (replies: Record<string, unknown>[]) => ({
    provider: "scripted",
    max_retries: 0,
    pricing: PRICE,
    replies,
  });
  const b = await writeHarness(root, "b", {
    name: "Bee",
    model: model([{ text: "12", usage: USAGE }]),
  });
  const c = await writeHarness(root, "c", {
    name: "Sea",
    model: model([{ error: { message: "down", status: 500 } }]),
  });
  const a = await writeHarness(root, "a", {
    name: "Ay",
    model: model([
      { tool_calls: [{ name: "delegate", arguments: { task: "count" } }], usage: USAGE },
      { text: "B counted 12", usage: USAGE },
    ]),
    delegation: { peers: [{ name: "b", harness: "../b" }, { name: "c", harness: "../c" }] },
  });
  // D hands its task to B after a second and a half, so its trace can be opened while it runs.
  const d = await writeHarness(root, "d", {
    name: "Dee",
    model: model([
      {
        tool_calls: [{ name: "delegate", arguments: { task: "count" } }],
        usage: USAGE,
        delay_ms: 1500,
      },
      { text: "B counted 12", usage: USAGE },
    ]),
    delegation: { peers: [{ name: "b", harness: "../b" }] },
  });
  for (const dir of [a, b, c, d]) await trustFolder(dir);
  for (let i = 0; i < 2; i++) {
    await (await startRun(b, { input: "x" })).result;
    await (await startRun(c, { input: "x" })).result;
  }
  const run = await startRun(a, { input: "How many?" });
  const result = await run.result;
  assert.equal(result.status, "success");
  const child = result.delegations![0]!.run_id;
  await using wb = await startWorkbenchProcess({ home: home.path, cwd: cwd.path });
  await using tb = await launchBrowser();
  const { page } = tb;

  // Every request for a run's lineage the page makes.
  const lineageReads: string[] = [];
  page.on("request", (r) => {
    if (r.url().endsWith("/lineage")) lineageReads.push(new URL(r.url()).pathname);
  });

  await t.step("the parent's trace: hand-off line, referral, cost footer, lineage", async () => {
    await openPage(page, `${wb.url}/h/a/trace?run=${run.run_id}`);
    const handoff = page.getByTestId("handoff");
    await handoff.waitFor();
    assert.match(await handoff.innerText(), /b\s+success \$0\.001 · 1 turns/);
    const referral = page.getByTestId("referral");
    assert.match(
      await referral.innerText(),
      /c 0% over 2 runs · eligible, a fitter peer was chosen/,
    );
    assert.match(
      await page.getByTestId("cost-footer").innerText(),
      /Delegated \$0\.001 of \$0\.003 \(33\.3%\)/,
    );
    const lineage = page.getByTestId("lineage");
    await lineage.waitFor();
    assert.match(await lineage.innerText(), /delegated · success\s+b/);
    // The run header's delegation stat: one hand-off, and what it cost.
    assert.equal(
      (await page.getByTestId("delegation-stat").innerText()).replace(/\s+/g, " "),
      `delegated 1 · $${result.delegated_cost_usd}`,
    );
    assert.equal(result.delegated_cost_usd, 0.001);
    // A finished run's lineage is read once.
    assert.deepEqual(lineageReads, [`/api/runs/${run.run_id}/lineage`]);
    await tb.screenshot("delegation", "parent-1280");
  });

  await t.step("the Delegation filter shows the four kinds of events", async () => {
    await page.locator('.type-filters [data-group="delegation"]').click();
    await page.waitForURL(/types=/);
    const types = await page.locator(".event-list .ev-type").allInnerTexts();
    assert.deepEqual(types, ["delegation_considered", "delegation_started", "delegation_finished"]);
  });

  await t.step(
    "the hand-off links to the child, whose lineage links back to the parent",
    async () => {
      await page.getByTestId("handoff").getByRole("link").click();
      await page.waitForURL(new RegExp(`/h/b/trace\\?.*run=${child}`));
      const lineage = page.getByTestId("lineage");
      await lineage.waitFor();
      assert.match(await lineage.innerText(), /Delegated by\s+a/);
      await lineage.getByRole("link").first().click();
      await page.waitForURL(new RegExp(`/h/a/trace\\?.*run=${run.run_id}`));
      await page.getByTestId("handoff").waitFor();
    },
  );

  await t.step("Overview lists the peers with their fitness", async () => {
    await openPage(page, `${wb.url}/h/a`);
    const peers = page.getByTestId("peers");
    await peers.waitFor();
    assert.match(await peers.locator('[data-peer="b"]').innerText(), /b 100% over 3 runs/);
    assert.match(await peers.locator('[data-peer="c"]').innerText(), /c 0% over 2 runs/);
    await page.setViewportSize({ width: 1000, height: 800 });
    await tb.screenshot("delegation", "overview-1000");
  });

  await t.step(
    "a run's lineage is read again when it ends: a hand-off made while it ran",
    async () => {
      const { runId: live, frames } = await startStreamedRun(wb, "d", "How many?");
      lineageReads.length = 0;
      await openPage(page, `${wb.url}/h/d/trace?run=${live}`);
      await page.locator('[data-integrity="live"]').waitFor();
      // Read while it runs (nothing yet), and again once it ended, with the child it made meanwhile.
      const lineage = page.getByTestId("lineage");
      await lineage.waitFor({ timeout: 30_000 });
      assert.match(await lineage.innerText(), /delegated · success\s+b/);
      await frames;
      assert.deepEqual(lineageReads, [`/api/runs/${live}/lineage`, `/api/runs/${live}/lineage`]);
    },
  );

  await t.step("nothing failed in the page and nothing left 127.0.0.1", () => {
    assert.deepEqual(tb.errors, []);
    assert.deepEqual(tb.foreign, []);
  });
});
