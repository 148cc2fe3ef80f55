/**
 * The Trace tab in a real browser (Debian's Chromium through playwright-core) with a run of about
 * 10,000 events: the counts, the virtualized list (only the rows in view are in the page), the last
 * event reached by scrolling, its detail, a type filter and the `k` key. Then a journal changed by one
 * byte after it was written: the integrity banner names the broken event. Both are photographed at
 * 1280×800 into tests/.artifacts/ui/.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import type { JournalEvent } from "../../lib/journal/event.ts";
import { parseJournal, verifyJournal } from "../../lib/journal/verify.ts";
import { launchBrowser, openPage } from "../helpers/browser.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir } from "../helpers/temp.ts";
import { type RunningWorkbenchProcess, startWorkbenchProcess } from "../helpers/workbench.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** Tool calls per model turn of the long run: 2 turns × (2 + 2 × 2498) + 4 other events = 10,000. */
const CALLS_PER_TURN = 2498;
/** The virtualized list keeps far fewer rows than this in the page. */
const MAX_ROWS_IN_DOM = 150;

function listCalls(n: number): Json[] {
  // Distinct objects, so the YAML has no aliases.
  return Array.from({ length: n }, () => ({ name: "list_files", arguments: {} }));
}

/** Runs a harness through the workbench API and returns its result. */
async function runThroughApi(wb: RunningWorkbenchProcess, id: string, input: string) {
  const res = await fetch(`${wb.url}/api/harnesses/${id}/runs`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ input }),
  });
  const json = await res.json();
  assert.equal(res.status, 200, JSON.stringify(json));
  assert.equal(json.data.status, "success", JSON.stringify(json.data));
  return json.data as { run_id: string; status: string };
}

Deno.test("trace: a 10,000-event run stays virtualized, filters and navigates; a one-byte change is named", async (t) => {
  await using home = await tempDir("fw-ui-long-home-");
  await using cwd = await tempDir("fw-ui-long-cwd-");
  const harnesses = join(cwd.path, "harnesses");
  const longDir = await writeHarness(harnesses, "long", {
    name: "Long",
    instructions: "List the files, many times.",
    model: scripted([
      { tool_calls: listCalls(CALLS_PER_TURN), usage: { input_tokens: 50, output_tokens: 20 } },
      { tool_calls: listCalls(CALLS_PER_TURN), usage: { input_tokens: 60, output_tokens: 20 } },
      { text: "Listed the folder many times.", usage: { input_tokens: 70, output_tokens: 8 } },
    ]),
    limits: { max_turns: 4, timeout_s: 300 },
    tools: [{ builtin: "list_files" }],
  });
  const smallDir = await writeHarness(
    harnesses,
    "small",
    {
      name: "Small",
      instructions: "Read the note.",
      model: scripted([
        {
          tool_calls: [
            { name: "list_files", arguments: { path: "workspace" } },
            { name: "file_read", arguments: { path: "workspace/note.txt" } },
          ],
        },
        { text: "The note says to water the plants." },
      ]),
      tools: [{ builtin: "list_files" }, { builtin: "file_read" }],
    },
    { "workspace/note.txt": "Water the plants.\n" },
  );
  await using wb = await startWorkbenchProcess({ home: home.path, cwd: cwd.path });
  await using tb = await launchBrowser();
  const { page } = tb;

  let runId = "";
  let events: JournalEvent[] = [];
  let count = 0;

  await t.step("run the long harness through the API; its journal holds the events", async () => {
    runId = (await runThroughApi(wb, "long", "List everything")).run_id;
    const bytes = await Deno.readFile(join(longDir, ".framework", "traces", `${runId}.jsonl`));
    events = parseJournal(bytes);
    count = events.length;
    assert.equal(count, 4 * CALLS_PER_TURN + 8, "run_started … run_finished");
    assert.deepEqual(verifyJournal(bytes), { ok: true, checked: count, broken_at: null });
    assert.equal(events.at(-1)!.type, "run_finished");
    const head = await fetch(`${wb.url}/api/runs/${runId}?limit=1`);
    assert.equal((await head.json()).data.event_count, count);
  });

  const timings: Record<string, number> = {};

  await t.step(
    "open its Trace: the counts are the journal's, and few rows are in the page",
    async () => {
      const t0 = performance.now();
      await openPage(page, `${wb.url}/h/long/trace?run=${runId}`);
      timings.hydrated_ms = performance.now() - t0;
      const all = page.locator(".type-filters .filter:not([data-type]) .count");
      await page.waitForFunction(
        (n) =>
          document.querySelector(".type-filters .filter:not([data-type]) .count")?.textContent ===
            String(n),
        count,
        { timeout: 30_000 },
      );
      timings.all_events_ms = performance.now() - t0;
      assert.equal(await all.innerText(), String(count));
      assert.equal(await page.locator(".type-filters").getByText(/loading all/).count(), 0);
      const integrity = page.locator('[data-integrity="ok"]');
      assert.match(await integrity.innerText(), new RegExp(`all ${count} events are intact`));

      const byType = new Map<string, number>();
      for (const e of events) byType.set(e.type, (byType.get(e.type) ?? 0) + 1);
      for (const [type, n] of byType) {
        assert.equal(
          await page.locator(`.type-filters [data-type="${type}"] .count`).innerText(),
          String(n),
          `${type} count`,
        );
      }
      const rows = await page.locator(".event-row").count();
      assert.ok(rows > 0 && rows < MAX_ROWS_IN_DOM, `${rows} rows in the page`);
      assert.equal(
        await page.locator('.event-row[data-seq="1"] .ev-type').innerText(),
        "run_started",
      );
      assert.equal(await page.locator(`.event-row[data-seq="${count}"]`).count(), 0, "not yet");
    },
  );

  await t.step(
    "scroll to the bottom: the last row is run_finished; click it for its detail",
    async () => {
      const t0 = performance.now();
      await page.locator(".event-list").evaluate((el) => {
        el.scrollTop = el.scrollHeight;
      });
      const last = page.locator(`.event-row[data-seq="${count}"]`);
      await last.waitFor();
      timings.scroll_to_last_ms = performance.now() - t0;
      assert.equal(await last.locator(".ev-type").innerText(), "run_finished");
      assert.match(await last.innerText(), /success/);
      const rows = await page.locator(".event-row").count();
      assert.ok(rows > 0 && rows < MAX_ROWS_IN_DOM, `${rows} rows in the page at the bottom`);
      assert.equal(await page.locator('.event-row[data-seq="1"]').count(), 0, "the top is gone");
      // The last row is inside the list's visible box, not just in the page.
      const list = (await page.locator(".event-list").boundingBox())!;
      const box = (await last.boundingBox())!;
      assert.ok(
        box.y >= list.y - 1 && box.y + box.height <= list.y + list.height + 1,
        `row ${JSON.stringify(box)} in list ${JSON.stringify(list)}`,
      );

      await last.click();
      const detail = page.locator(`.event-detail .detail[data-seq="${count}"]`);
      await detail.waitFor();
      assert.match(await detail.locator(".detail-head").innerText(), /run_finished/);
      assert.match(await detail.locator(".detail-head").innerText(), new RegExp(`#${count}`));
      assert.match(await detail.innerText(), /payload/i);
      assert.match(await detail.innerText(), /success/);
      assert.match(await last.getAttribute("class") ?? "", /selected/);
      await tb.screenshot("ui", "trace-10k");
    },
  );

  await t.step("k moves the selection up to the event before", async () => {
    await page.locator("body").press("k");
    await page.locator(`.event-detail .detail[data-seq="${count - 1}"]`).waitFor();
    assert.equal(events[count - 2]!.type, "model_response");
    assert.match(
      await page.locator(".event-detail .detail-head").innerText(),
      /model_response/,
    );
    assert.match(
      await page.locator(`.event-row[data-seq="${count - 1}"]`).getAttribute("class") ?? "",
      /selected/,
    );
  });

  await t.step(
    "filter by tool_result: only tool_result rows; k steps to the previous one",
    async () => {
      const results = events.filter((e) => e.type === "tool_result");
      assert.equal(results.length, 2 * CALLS_PER_TURN);
      await page.locator('.type-filters [data-type="tool_result"]').click();
      await page.waitForURL(/types=tool_result/);
      // The filtered rows are shown (a list emptied while it re-renders does not count).
      await page.waitForFunction(() => {
        const shown = [...document.querySelectorAll(".event-list .ev-type")];
        return shown.length > 0 && shown.every((x) => x.textContent === "tool_result");
      });
      const types = await page.locator(".event-list .ev-type").allInnerTexts();
      assert.ok(types.length > 0 && types.length < MAX_ROWS_IN_DOM, `${types.length} rows`);
      assert.ok(types.every((x) => x === "tool_result"), types.join(","));
      const space = await page.locator(".event-space").evaluate((el) => el.clientHeight);
      assert.equal(space, results.length * 30, "the list is as tall as the tool results");

      // Pick the third shown row, then k selects the tool result before it.
      await page.locator(".event-list").evaluate((el) => {
        el.scrollTop = 0;
      });
      const third = page.locator(`.event-row[data-seq="${results[2]!.seq}"]`);
      await third.click();
      await page.locator(`.event-detail .detail[data-seq="${results[2]!.seq}"]`).waitFor();
      await page.locator("body").press("k");
      await page.locator(`.event-detail .detail[data-seq="${results[1]!.seq}"]`).waitFor();
      assert.match(await page.locator(".event-detail .detail-head").innerText(), /tool_result/);
      await page.locator("body").press("k");
      await page.locator(`.event-detail .detail[data-seq="${results[0]!.seq}"]`).waitFor();
    },
  );

  await t.step("a journal changed by one byte: the banner names the broken event", async () => {
    const small = await runThroughApi(wb, "small", "What does the note say?");
    const path = join(smallDir, ".framework", "traces", `${small.run_id}.jsonl`);
    const bytes = await Deno.readFile(path);
    const before = parseJournal(bytes).length;
    // The first letter or digit from the middle of the file on, changed in place.
    let at = Math.floor(bytes.length / 2);
    const isAlnum = (b: number) =>
      (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a);
    while (!isAlnum(bytes[at]!)) at++;
    const old = bytes[at]!;
    const now = old === 0x30 || old === 0x41 || old === 0x61 ? old + 1 : old - 1;
    const brokenSeq = bytes.subarray(0, at).filter((b) => b === 0x0a).length + 1;
    assert.ok(brokenSeq > 1 && brokenSeq < before, `event ${brokenSeq} of ${before}`);
    {
      using file = await Deno.open(path, { write: true });
      await file.seek(at, Deno.SeekMode.Start);
      assert.equal(await file.write(new Uint8Array([now])), 1);
    }
    const after = await Deno.readFile(path);
    assert.equal(after.length, bytes.length);
    assert.equal(after.filter((b, i) => b !== bytes[i]).length, 1, "exactly one byte changed");
    assert.deepEqual(verifyJournal(after), {
      ok: false,
      checked: brokenSeq - 1,
      broken_at: brokenSeq,
    });

    await openPage(page, `${wb.url}/h/small/trace?run=${small.run_id}`);
    const banner = page.locator('[data-integrity="broken"]');
    await banner.waitFor();
    const text = await banner.innerText();
    assert.match(text, new RegExp(`Hash chain broken at event ${brokenSeq}\\b`));
    assert.match(text, new RegExp(`the first ${brokenSeq - 1} events verify`));
    assert.equal(await page.locator('[data-integrity="ok"]').count(), 0);
    await tb.screenshot("ui", "trace-broken");
  });

  await t.step("nothing failed in the page and nothing left 127.0.0.1", () => {
    console.log(
      `long trace: ${count} events; hydrated in ${Math.round(timings.hydrated_ms!)} ms, ` +
        `all events counted in ${Math.round(timings.all_events_ms!)} ms, ` +
        `last row shown ${Math.round(timings.scroll_to_last_ms!)} ms after the scroll`,
    );
    assert.deepEqual(tb.errors, []);
    assert.deepEqual(tb.foreign, []);
  });
});
