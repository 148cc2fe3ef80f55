/**
 * The waterfall in Trace, in Chromium: a run of A that handed a task to B shows its bars in journal
 * order (the run, the model calls, the `delegate` tool call with the hand-off nested in it), each
 * bar's duration equal to its events' timestamps apart; the hand-off opens B's run nested under it;
 * hovering a bar shows duration, tokens and cost; clicking one selects its event. A fork of A's run,
 * resumed, shows its replayed prefix as one bar before the live calls. Screenshots at 1280 and
 * 1000 px go to tests/.artifacts/waterfall/.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import type { Page } from "playwright-core";
import type { JournalEvent } from "../../lib/journal/event.ts";
import { startRun } from "../../lib/runs/service.ts";
import { trustFolder } from "../../lib/trust/store.ts";
import { launchBrowser, openPage } from "../helpers/browser.ts";
import { writeHarness } from "../helpers/harness.ts";
import { tempDir, tempHome } from "../helpers/temp.ts";
import { startWorkbenchProcess, workbenchCall } from "../helpers/workbench.ts";

const PRICE = { input_per_mtok: 1, output_per_mtok: 1 };
const USAGE = { input_tokens: 500, output_tokens: 500 };

/** A bar as the page shows it. */
interface Bar {
  kind: string;
  seq: number;
  depth: number;
  run: string;
  duration: number;
  label: string;
}

async function bars(page: Page): Promise<Bar[]> {
  return await page.locator('[aria-label="Waterfall"] .wf-row').evaluateAll((rows) =>
    rows.map((r) => {
      const bar = r.querySelector(".wf-bar") as HTMLElement;
      return {
        kind: r.getAttribute("data-kind")!,
        seq: Number(bar.dataset.seq),
        depth: Number(r.getAttribute("data-depth")),
        run: r.getAttribute("data-run")!,
        duration: Number(bar.dataset.duration),
        label: bar.getAttribute("aria-label")!,
      };
    }).sort((a, b) => a.seq - b.seq || a.depth - b.depth)
  );
}

/** The spans a journal holds, worked out here from the events (not by the code under test). */
function expectedSpans(events: JournalEvent[]) {
  const at = (e: JournalEvent) => Date.parse(e.ts);
  const find = (from: JournalEvent, type: string, match: (e: JournalEvent) => boolean) =>
    events.find((e) => e.seq > from.seq && e.type === type && match(e))!;
  const out: { kind: string; type: string; seq: number; duration: number }[] = [];
  for (const e of events) {
    const p = e.payload;
    const end = e.type === "run_started"
      ? find(e, "run_finished", () => true)
      : e.type === "model_call"
      ? find(e, "model_response", () => true)
      : e.type === "tool_call"
      ? find(e, "tool_result", (r) => r.payload.id === p.id)
      : e.type === "delegation_started"
      ? find(e, "delegation_finished", (r) => r.payload.child_run_id === p.child_run_id)
      : null;
    if (!end) continue;
    const kind = { run_started: "run", model_call: "model", tool_call: "tool" }[e.type] ??
      "delegation";
    out.push({ kind, type: e.type, seq: e.seq, duration: at(end) - at(e) });
  }
  return out;
}

async function journal(url: string, runId: string): Promise<JournalEvent[]> {
  const r = await workbenchCall({ url }, "GET", `/api/runs/${runId}`);
  assert.equal(r.status, 200, JSON.stringify(r.json));
  return r.json.data.events;
}

Deno.test("the waterfall: order, nesting, durations, hover, click, a hand-off opened, a fork's replayed prefix", async (t) => {
  await using home = await tempHome();
  await using cwd = await tempDir("fw-wf-cwd-");
  const root = join(cwd.path, "harnesses");
  const model = (replies: Record<string, unknown>[]) => ({
    provider: "scripted",
    max_retries: 0,
    pricing: PRICE,
    replies,
  });
  const b = await writeHarness(root, "b", {
    name: "Bee",
    model: model([{ text: "12", usage: USAGE, delay_ms: 60 }]),
  });
  const a = await writeHarness(root, "a", {
    name: "Ay",
    model: model([
      {
        tool_calls: [{ name: "delegate", arguments: { task: "count" } }],
        usage: USAGE,
        delay_ms: 40,
      },
      { text: "B counted 12", usage: USAGE, delay_ms: 30 },
    ]),
    delegation: { peers: [{ name: "b", harness: "../b" }] },
  });
  for (const d of [a, b]) await trustFolder(d);
  const result = await (await startRun(a, { input: "How many?" })).result;
  assert.equal(result.status, "success");
  const child = result.delegations![0]!.run_id;
  await using wb = await startWorkbenchProcess({ home: home.path, cwd: cwd.path });
  await using tb = await launchBrowser();
  const { page } = tb;
  const events = await journal(wb.url, result.run_id);

  await t.step("the bars come in journal order, nested, with the journal's durations", async () => {
    await openPage(page, `${wb.url}/h/a/trace?run=${result.run_id}`);
    await page.locator('[aria-label="Waterfall"] .wf-bar').first().waitFor();
    const shown = await bars(page);
    const want = expectedSpans(events);
    assert.deepEqual(
      shown.map((x) => [x.kind, x.seq, x.duration]),
      want.map((x) => [x.kind, x.seq, x.duration]),
    );
    assert.deepEqual(shown.map((x) => x.kind), [
      "run",
      "model",
      "tool",
      "delegation",
      "model",
    ]);
    // The run at the top, what it did under it, the hand-off inside its `delegate` call.
    assert.deepEqual(shown.map((x) => x.depth), [0, 1, 1, 2, 1]);
    // Each bar's label names its event type and its duration.
    for (const [i, x] of shown.entries()) {
      assert.ok(x.label.startsWith(`${want[i]!.type} `), x.label);
      assert.match(x.label, /\d+(\.\d)? (ms|s)$/);
    }
    assert.ok(shown[1]!.duration >= 40, `the first model call took ${shown[1]!.duration} ms`);
    await tb.screenshot("waterfall", "run-1280");
  });

  await t.step("hovering a bar shows its duration, tokens and cost", async () => {
    const call = page.locator('[aria-label="Waterfall"] .wf-row[data-kind="model"] .wf-bar')
      .first();
    await call.hover();
    const tip = page.getByTestId("wf-tip");
    await tip.waitFor();
    const text = await tip.innerText();
    assert.match(text, /turn 1/);
    assert.match(text, /500→500 tokens/);
    assert.match(text, /\$0\.001/);
    const ms = Number(await call.getAttribute("data-duration"));
    assert.ok(text.includes(ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`), text);
  });

  await t.step("clicking a bar selects its event", async () => {
    const tool = events.find((e) => e.type === "tool_call")!;
    await page.locator(`[aria-label="Waterfall"] .wf-bar[data-seq="${tool.seq}"]`).first()
      .click();
    await page.waitForURL(new RegExp(`seq=${tool.seq}`));
    await page.locator(`.event-detail .detail[data-seq="${tool.seq}"]`).waitFor();
    assert.equal(
      await page.locator(`.wf-row.selected .wf-bar`).first().getAttribute("data-seq"),
      String(tool.seq),
    );
  });

  await t.step("the hand-off opens the child run nested under it", async () => {
    await page.getByTestId("wf-expand").click();
    await page.locator(`.wf-row[data-run="${child}"]`).first().waitFor();
    const nested = (await bars(page)).filter((x) => x.run === child);
    const want = expectedSpans(await journal(wb.url, child));
    assert.deepEqual(
      nested.map((x) => [x.kind, x.seq, x.duration]),
      want.map((x) => [x.kind, x.seq, x.duration]),
    );
    // Deeper than the hand-off (2): its run at 3, the child's model call at 4.
    assert.deepEqual(nested.map((x) => x.depth), [3, 4]);
    assert.ok(nested[1]!.duration >= 60);
    await tb.screenshot("waterfall", "child-open-1280");
    await page.setViewportSize({ width: 1000, height: 800 });
    await tb.screenshot("waterfall", "child-open-1000");
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  await t.step("a resumed fork shows its replayed prefix as one bar", async () => {
    const secondCall = events.filter((e) => e.type === "model_call")[1]!;
    const forked = await workbenchCall(wb, "POST", `/api/runs/${result.run_id}/fork`, {
      at: secondCall.seq,
      name: "a-fork",
      model: "scripted:fork-model",
    });
    assert.equal(forked.status, 201, JSON.stringify(forked.json));
    const resumed = await workbenchCall(wb, "POST", "/api/harnesses/a-fork/resume", {});
    assert.equal(resumed.status, 202, JSON.stringify(resumed.json));
    const runId: string = resumed.json.data.run_id;
    let forkEvents: JournalEvent[] = [];
    for (let i = 0; i < 100; i++) {
      forkEvents = await journal(wb.url, runId);
      if (forkEvents.some((e) => e.type === "run_finished")) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    await openPage(page, `${wb.url}/h/a-fork/trace?run=${runId}`);
    await page.locator('[aria-label="Waterfall"] .wf-bar').first().waitFor();
    const shown = await bars(page);
    const replayed = forkEvents.filter((e) => e.type === "replayed");
    assert.ok(replayed.length >= 5, `${replayed.length} replayed events`);
    const resumedAt = forkEvents.find((e) => e.type === "fork_resumed")!;
    const prefix = shown.find((x) => x.kind === "replayed")!;
    assert.equal(prefix.seq, resumedAt.seq);
    assert.equal(
      prefix.duration,
      Date.parse(replayed.at(-1)!.ts) - Date.parse(resumedAt.ts),
    );
    assert.match(prefix.label, /^fork_resumed replayed prefix · \d+ events /);
    // The prefix comes before the calls made live after the re-entry.
    const live = shown.filter((x) => x.kind === "model");
    assert.ok(live.length >= 1 && live.every((x) => x.seq > replayed.at(-1)!.seq));
    await page.locator('.wf-row[data-kind="replayed"] .wf-bar').hover();
    assert.match(
      await page.getByTestId("wf-tip").innerText(),
      new RegExp(`${replayed.length} events`),
    );
    await tb.screenshot("waterfall", "fork-1280");
    await page.setViewportSize({ width: 1000, height: 800 });
    await tb.screenshot("waterfall", "fork-1000");
  });

  await t.step("nothing failed in the page and nothing left 127.0.0.1", () => {
    assert.deepEqual(tb.errors, []);
    assert.deepEqual(tb.foreign, []);
  });
});
