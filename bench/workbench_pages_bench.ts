/**
 * The workbench pages: the server's time to answer each page (read the API, render every island) and
 * to render alone; the size of the JavaScript and CSS the browser gets (raw and gzipped); and, in
 * Chromium, the Trace tab's time to show a run of about 10,000 events and to scroll to its end.
 *
 * @module
 */

import { stringify } from "yaml";
import { chromium, type Page } from "playwright-core";
import { initHarness } from "../lib/construct/init_harness.ts";
import { proposeImprovement } from "../lib/evolve/propose.ts";
import { openHive } from "../lib/hive/open.ts";
import { finishRun, insertRun } from "../lib/hive/runs.ts";
import { newRunId } from "../lib/ids.ts";
import { createJournal } from "../lib/journal/writer.ts";
import { setFrameworkHome } from "../lib/paths.ts";
import { startRun } from "../lib/runs/service.ts";
import { openWorkbenchDb } from "../lib/workbench/db.ts";
import { rememberMemory } from "../lib/workbench/memories.ts";
import { startWorkbench } from "../routes/workbench_server.ts";
import appCss from "../ui/app.css" with { type: "text" };
import clientJs from "../ui/dist/client.js" with { type: "text" };
import { renderDocument } from "../ui/document.tsx";
import type { PageState } from "../ui/page_state.ts";
import { CHROMIUM_FLAGS, chromiumPath } from "../tests/helpers/browser.ts";
import { fmt, measure, report, summarize } from "./measure.ts";
import { benchTempDir } from "./temp_dirs.ts";

async function gzipSize(text: string): Promise<number> {
  const gz = await new Response(
    new Blob([text]).stream().pipeThrough(new CompressionStream("gzip")),
  ).arrayBuffer();
  return gz.byteLength;
}

/** A scripted harness whose one run writes about `events` journal events (tool calls in 2 turns). */
export async function longRunHarness(root: string, events: number): Promise<string> {
  const dir = `${root}/long`;
  await Deno.mkdir(`${dir}/workspace`, { recursive: true });
  await Deno.writeTextFile(`${dir}/workspace/a.txt`, "a\n");
  const perTurn = Math.max(1, Math.round((events - 7) / 4));
  const calls = Array.from({ length: perTurn }, () => ({ name: "list_files", arguments: {} }));
  await Deno.writeTextFile(
    `${dir}/harness.yaml`,
    stringify({
      id: "long",
      name: "Long run",
      model: {
        provider: "scripted",
        name: "long",
        replies: [{ tool_calls: calls }, { tool_calls: calls }, { text: "done" }],
      },
      instructions: "List files many times.",
      tools: [{ builtin: "list_files" }],
      limits: { max_turns: 5, timeout_s: 600 },
    }),
  );
  return dir;
}

/** Events of the synthetic long run (written directly, as a run of that size would). */
const BIG_EVENTS = 100_000;

/**
 * Writes a finished run of `events` events into a harness (journal through the journal writer, row
 * through the hive), as a long agent run would leave them: a tool call and its result per step.
 */
async function syntheticRun(dir: string, events: number): Promise<string> {
  const runId = newRunId();
  const path = `${dir}/.framework/traces/${runId}.jsonl`;
  const started = new Date();
  const db = openHive();
  insertRun(db, {
    run_id: runId,
    harness_id: "long",
    harness_dir: await Deno.realPath(dir),
    input: "go",
    started_at: started.toISOString(),
    spec_version: "synthetic",
    trace_path: path,
  });
  const journal = createJournal(path);
  journal.append("run_started", { run_id: runId, harness_id: "long", input: "go" });
  for (let i = 1; journal.count() < events - 1; i++) {
    const id = `call_${i}`;
    journal.append("tool_call", { turn: 1, id, name: "list_files", arguments: {} });
    if (journal.count() < events - 1) {
      journal.append("tool_result", {
        turn: 1,
        id,
        name: "list_files",
        ok: true,
        content: "a.txt\nharness.yaml\nworkspace/",
        duration_ms: 1,
      });
    }
  }
  const result = {
    run_id: runId,
    harness_id: "long",
    status: "success" as const,
    output: "done",
    cost_usd: 0,
    turns: 1,
    started_at: started.toISOString(),
    ended_at: new Date().toISOString(),
    duration_ms: 1000,
    spec_version: "synthetic",
    failure_signature: null,
  };
  journal.append("run_finished", { ...result });
  await journal.close();
  finishRun(db, result, { head_hash: journal.head(), events: journal.count() });
  return runId;
}

/**
 * Installed in every document the benchmark's page loads: on each animation frame until it holds,
 * checks whether the Trace tab shows its first page (hydrated, rows on screen, the whole journal's
 * integrity verdict), and records when, on the document's own clock (milliseconds from the start of
 * its navigation), with the figures line's text then (which must give the whole journal's count).
 */
function recordTraceShown(): void {
  const check = () => {
    const shown = document.documentElement.dataset.hydrated === "true" &&
      !!document.querySelector(".event-row") && !!document.querySelector("[data-integrity]");
    if (!shown) return void requestAnimationFrame(check);
    (globalThis as { __traceShown?: unknown }).__traceShown = {
      at: performance.now(),
      stats: document.querySelector(".trace-stats")?.textContent ?? "",
    };
  };
  requestAnimationFrame(check);
}

/**
 * The Trace tab of a long run in Chromium, 6 loads (the first one not counted): when the first page
 * is shown (rows on screen, the whole journal's integrity verdict and its event count), when every
 * event is loaded, and the scroll to the last event.
 *
 * "Shown" is read from the page's own clock: from the start of the navigation to the first frame
 * that shows it, as a person at the browser sees it. Beside it, the time until the test driver,
 * polling the page over the DevTools protocol, had seen the same: that adds the driver's own round
 * trips, which wait while the page's main thread is busy (the tab reading the rest of the journal
 * right after the first paint), and is not what the page shows.
 */
async function measureTrace(page: Page, url: string, events: number): Promise<void> {
  const shown: number[] = [];
  const seen: number[] = [];
  const loaded: number[] = [];
  const scrolled: number[] = [];
  let rows = 0;
  for (let i = 0; i < 6; i++) {
    const t0 = performance.now();
    await page.goto(url);
    // The driver waits for the page's own record of the frame that showed the trace.
    const record = await page.waitForFunction(
      () => (globalThis as { __traceShown?: { at: number; stats: string } }).__traceShown,
      undefined,
      { timeout: 120_000 },
    );
    const t1 = performance.now();
    const inPage = (await record.jsonValue())!; // it resolves only once the record is there
    if (!inPage.stats.includes(`events ${events}`)) {
      throw new Error(`the first frame showing the trace did not give its count: ${inPage.stats}`);
    }
    await page.waitForSelector('[data-testid="trace"][data-complete="true"]', {
      timeout: 120_000,
    });
    const t2 = performance.now();
    await page.evaluate(() => {
      const list = document.querySelector(".event-list")!;
      list.scrollTop = list.scrollHeight;
    });
    await page.waitForSelector(`.event-row[data-seq="${events}"]`);
    const t3 = performance.now();
    rows = await page.locator(".event-row").count();
    if (i > 0) {
      shown.push(inPage.at);
      seen.push(t1 - t0);
      loaded.push(t2 - t0);
      scrolled.push(t3 - t2);
    }
  }
  report(`Trace tab, ${events.toLocaleString()}-event run, in Chromium`, {
    "shown p50": fmt(summarize(shown).p50_ms, " ms"),
    max: fmt(Math.max(...shown), " ms"),
    "seen by the driver p50": fmt(summarize(seen).p50_ms, " ms"),
    "all loaded p50": fmt(summarize(loaded).p50_ms, " ms"),
    "scroll to end p50": fmt(summarize(scrolled).p50_ms, " ms"),
    "rows in DOM": String(rows),
  });
}

/** Runs the benchmark. */
export async function run(): Promise<void> {
  const root = await benchTempDir("fw-bench-ui-");
  setFrameworkHome(`${root}/home`);
  const harnesses = `${root}/harnesses`;
  const hello = (await initHarness(`${harnesses}/hello`, { template: "hello", id: "hello" })).dir;
  const runIds: string[] = [];
  for (let i = 0; i < 20; i++) {
    runIds.push(
      (await (await startRun(hello, { input: `hello ${i}` })).result)
        .run_id,
    );
  }
  await proposeImprovement(hello, { trigger: "cli", policy: "proposal" });
  const db = openWorkbenchDb();
  for (let i = 0; i < 20; i++) {
    rememberMemory(db, {
      scope: i % 2 ? "global" : "harness",
      harness_id: "hello",
      content: `Fact ${i}`,
    });
  }
  const long = await longRunHarness(harnesses, 10_000);
  const longRun = await (await startRun(long, { input: "go" })).result;
  const longEvents = Number(
    (await Deno.readTextFile(`${long}/.framework/traces/${longRun.run_id}.jsonl`)).split("\n")
      .length - 1,
  );

  const bigRun = await syntheticRun(long, BIG_EVENTS);

  const wb = await startWorkbench({
    port: 0,
    harnessesDir: harnesses,
    copilotModel: undefined,
    warn: () => {},
  });
  try {
    // A conversation, so the chat island has something to render.
    await fetch(`${wb.url}/api/conversations`, {
      method: "POST",
      body: "{}",
      headers: { "content-type": "application/json" },
    })
      .then((r) => r.body?.cancel());

    const pages: [string, string][] = [
      ["chat (no harness)", "/?c="],
      ["Overview", "/h/hello"],
      ["Runs", "/h/hello/runs"],
      ["Trace (9 events)", `/h/hello/trace?run=${runIds[0]}&seq=2`],
      [`Trace (${longEvents} events)`, `/h/long/trace?run=${longRun.run_id}`],
      ["Spec", "/h/hello/spec"],
      ["Improve", "/h/hello/improve"],
      ["Settings › Memory", "/settings/memory"],
    ];
    for (const [name, path] of pages) {
      let html = "";
      const t = await measure(100, async () => {
        const res = await fetch(wb.url + path);
        html = await res.text();
      }, 10);
      const state = JSON.parse(
        /<script type="application\/json" id="fw-state">(.*?)<\/script>/s.exec(html)![1]!,
      ) as PageState;
      const assets = { css: "/a.css", js: "/c.js" };
      const render = await measure(200, () => renderDocument(state, assets), 20);
      report(`GET ${name}`, {
        p50: fmt(t.p50_ms, " ms"),
        p99: fmt(t.p99_ms, " ms"),
        "render alone p50": fmt(render.p50_ms, " ms"),
        html: fmt(html.length / 1024, " KiB"),
      });
    }

    const jsGz = await gzipSize(clientJs);
    const cssGz = await gzipSize(appCss);
    report("browser JavaScript (ui/dist/client.js)", {
      raw: fmt(clientJs.length / 1024, " KiB"),
      gzipped: fmt(jsGz / 1024, " KiB"),
    });
    report("browser CSS (ui/app.css)", {
      raw: fmt(appCss.length / 1024, " KiB"),
      gzipped: fmt(cssGz / 1024, " KiB"),
    });

    const browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_FLAGS });
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      await page.addInitScript(recordTraceShown);
      for (const [runId, n] of [[longRun.run_id, longEvents], [bigRun, BIG_EVENTS]] as const) {
        await measureTrace(page, `${wb.url}/h/long/trace?run=${runId}`, n);
      }
    } finally {
      await browser.close();
    }
  } finally {
    await wb.close();
  }
}
