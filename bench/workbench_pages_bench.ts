/**
 * The workbench pages: the server's time to answer each page (read the API, render every island) and
 * to render alone; the size of the JavaScript and CSS the browser gets (raw and gzipped); and, in
 * Chromium, the Trace tab's time to show a run of about 10,000 events and to scroll to its end.
 *
 * @module
 */

import { stringify } from "yaml";
import { chromium } from "playwright-core";
import { initHarness } from "../lib/construct/init_harness.ts";
import { proposeImprovement } from "../lib/evolve/propose.ts";
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

async function gzipSize(text: string): Promise<number> {
  const gz = await new Response(
    new Blob([text]).stream().pipeThrough(new CompressionStream("gzip")),
  ).arrayBuffer();
  return gz.byteLength;
}

/** A scripted harness whose one run writes about `events` journal events (tool calls in 2 turns). */
async function longRunHarness(root: string, events: number): Promise<string> {
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

/** Runs the benchmark. */
export async function run(): Promise<void> {
  const root = await Deno.makeTempDir({ prefix: "fw-bench-ui-" });
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
      const url = `${wb.url}/h/long/trace?run=${longRun.run_id}`;
      const shown: number[] = [];
      const scrolled: number[] = [];
      let rows = 0;
      const fetches: number[] = [];
      let fetchBytes = 0;
      for (let i = 0; i < 6; i++) {
        const t0 = performance.now();
        await page.goto(url);
        // Shown: hydrated, every event loaded (the "all" count), and rows on screen.
        await page.waitForFunction(
          (n) =>
            document.documentElement.dataset.hydrated === "true" &&
            document.querySelector(".type-filters .filter .count")?.textContent === String(n) &&
            !!document.querySelector(".event-row"),
          longEvents,
          { timeout: 60_000 },
        );
        const t1 = performance.now();
        await page.evaluate(() => {
          const list = document.querySelector(".event-list")!;
          list.scrollTop = list.scrollHeight;
        });
        await page.waitForSelector(`.event-row[data-seq="${longEvents}"]`);
        const t2 = performance.now();
        rows = await page.locator(".event-row").count();
        const full = await page.evaluate(() =>
          (performance.getEntriesByType("resource") as PerformanceResourceTiming[])
            .filter((e) => /\/api\/runs\/[^/?]+$/.test(e.name))
            .map((e) => ({ ms: e.duration, bytes: e.decodedBodySize }))[0]
        );
        if (full && i > 0) {
          fetches.push(full.ms);
          fetchBytes = full.bytes;
        }
        if (i > 0) {
          shown.push(t1 - t0);
          scrolled.push(t2 - t1);
        }
      }
      const s = summarize(shown);
      const sc = summarize(scrolled);
      report(`Trace tab, ${longEvents}-event run, in Chromium`, {
        "to shown p50": fmt(s.p50_ms, " ms"),
        max: fmt(Math.max(...shown), " ms"),
        "scroll to end p50": fmt(sc.p50_ms, " ms"),
        "rows in DOM": String(rows),
      });
      report(`  of which: loading the whole trace from the API`, {
        p50: fmt(summarize(fetches).p50_ms, " ms"),
        size: fmt(fetchBytes / 1024 / 1024, " MiB"),
      });
    } finally {
      await browser.close();
    }
  } finally {
    await wb.close();
    await Deno.remove(root, { recursive: true }).catch(() => {});
  }
}
