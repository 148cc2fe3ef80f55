/**
 * Threads in the workbench, in Chromium: a chat page (`interface.input: chat`) holds a two-turn
 * conversation in the Use tab's sandboxed frame, through the bridge, which makes the frame's one
 * thread (the second run's first model call holds the first turn); a script in the frame can name
 * no thread and ask for no other harness's; Runs groups the thread's runs under one thread row
 * beside a run of no thread; the thread's conversation (rendered by the server too) shows both turns,
 * each linking to its run's Trace, which links back; a new frame starts a new thread. Screenshots go
 * to tests/.artifacts/threads/.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import type { Frame } from "playwright-core";
import { launchBrowser, openPage } from "../helpers/browser.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir } from "../helpers/temp.ts";
import { startWorkbenchProcess, workbenchCall } from "../helpers/workbench.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** Answers by the input's first word, so each turn's answer is known. */
function model() {
  return scripted([{ text: "Say one or two." }], {
    scenarios: [
      { match: "^one", replies: [{ text: "Answer **one**." }] },
      { match: "^two", replies: [{ text: "Answer two." }] },
    ],
  });
}

Deno.test("threads in the workbench: a chat page's conversation, grouped in Runs, its view and Trace", async (t) => {
  await using home = await tempDir("fw-thr-ui-home-");
  await using cwd = await tempDir("fw-thr-ui-cwd-");
  const harnesses = join(cwd.path, "harnesses");
  await writeHarness(harnesses, "chatty", {
    name: "Chatty",
    description: "Talks in turns.",
    model: model(),
    interface: { input: "chat" },
  });
  await writeHarness(harnesses, "other", { model: model() });
  await using wb = await startWorkbenchProcess({ home: home.path, cwd: cwd.path });
  await using tb = await launchBrowser();
  const { page } = tb;
  const shot = (name: string) => tb.screenshot("threads", name);
  const inner = page.frameLocator('[data-testid="use-frame"]');
  const runsOf = async (id: string) =>
    (await workbenchCall(wb, "GET", `/api/harnesses/${id}/runs`)).json.data;
  /** The cells of the Runs table cut short, but the inputs (which are cut on purpose). */
  const cutCells = () =>
    page.locator(".runs-table").evaluate((el) =>
      [...el.querySelectorAll("th, td")]
        .filter((c) => !c.classList.contains("excerpt") && c.textContent !== "Input")
        .filter((c) => c.scrollWidth > c.clientWidth + 1)
        .map((c) => c.textContent)
    );
  const preview = (): Frame => {
    const f = page.frames().find((x) => x.url().includes("/interface"));
    assert.ok(f, "the preview frame");
    return f;
  };
  let threadId = "";
  let first: Json, second: Json;

  await t.step("the chat page is generated and shows an empty conversation", async () => {
    await openPage(page, `${wb.url}/h/chatty/use`);
    await page.getByText("No page yet").waitFor();
    const kind = page.locator('select[aria-label="What the page asks for"]');
    assert.equal(await kind.inputValue(), "chat", "the spec's interface.input");
    await page.getByTestId("generate").click();
    await inner.locator("h1", { hasText: "Chatty" }).waitFor();
    await inner.locator("#log-empty", { hasText: "Nothing said yet" }).waitFor();
    assert.equal(await inner.locator("#token-row").isHidden(), true, "no token in the preview");
    assert.equal(await inner.locator("#new").isHidden(), true, "the bridge holds the thread");
  });

  await t.step("two messages are two turns of one thread the bridge made", async () => {
    await inner.locator("#input").fill("one: hello");
    await inner.locator("#input").press("Enter");
    await inner.locator(".turn-harness strong", { hasText: "one" }).waitFor();
    await inner.locator("#input").fill("two: and now?");
    await inner.locator("#run").click();
    await inner.locator(".turn-harness", { hasText: "Answer two." }).waitFor();
    assert.deepEqual(await inner.locator(".turn-user .said").allInnerTexts(), [
      "one: hello",
      "two: and now?",
    ]);
    assert.equal(await inner.locator(".turn-harness .status-success").count(), 2);
    const threads = (await workbenchCall(wb, "GET", "/api/harnesses/chatty/threads")).json.data;
    assert.equal(threads.threads.length, 1, "one thread for the frame");
    threadId = threads.threads[0].thread_id;
    assert.equal(threads.threads[0].turns, 2);
    assert.deepEqual(threads.threads[0].metadata, { source: "use" });
    const { runs } = await runsOf("chatty");
    [second, first] = runs;
    assert.deepEqual(runs.map((r: Json) => r.thread_id), [threadId, threadId]);
    const view = (await workbenchCall(wb, "GET", `/api/runs/${second.run_id}`)).json.data;
    const call = view.events.find((e: Json) => e.type === "model_call");
    assert.deepEqual(call.payload.append, [
      { role: "user", content: "one: hello" },
      { role: "assistant", content: "Answer **one**." },
      { role: "user", content: "two: and now?" },
    ], "the second turn's model was given the first");
    await page.getByTestId("use-thread-link").waitFor();
    await shot("use-chat-1280");
    await page.setViewportSize({ width: 1000, height: 800 });
    await shot("use-chat-1000");
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  await t.step("the frame can name no thread and ask for no other harness's", async () => {
    const foreign = (await workbenchCall(wb, "POST", "/api/harnesses/other/threads", {})).json
      .data.thread_id;
    const own = (await workbenchCall(wb, "POST", "/api/harnesses/chatty/threads", {})).json
      .data.thread_id;
    const report = await preview().evaluate(async (ids) => {
      const ask = (m: unknown) =>
        new Promise<unknown>((resolve) => {
          const on = (e: MessageEvent) => {
            if (e.source !== parent || !String(e.data?.type).startsWith("framework:")) return;
            removeEventListener("message", on);
            resolve(e.data);
          };
          addEventListener("message", on);
          parent.postMessage(m, "*");
        });
      const run = { type: "framework:run", harness: "chatty", input: "one: spoof" };
      return {
        named: await ask({ ...run, thread: ids.own }),
        foreignNamed: await ask({ ...run, thread: ids.foreign }),
        threadId: await ask({ ...run, thread: true, thread_id: ids.own }),
        otherHarness: await ask({ ...run, harness: "other", thread: true }),
        falsy: await ask({ ...run, thread: false }),
      };
    }, { own, foreign });
    const refused = (r: unknown, pattern: RegExp) => {
      const m = r as { type: string; error: string };
      assert.equal(m.type, "framework:error", JSON.stringify(r));
      assert.match(m.error, pattern);
    };
    refused(report.named, /thread must be true/);
    refused(report.foreignNamed, /thread must be true/);
    refused(report.threadId, /Unknown field "thread_id"/);
    refused(report.otherHarness, /may only run chatty/);
    refused(report.falsy, /thread must be true/);
    for (const id of [own, foreign]) {
      const thread = (await workbenchCall(wb, "GET", `/api/threads/${id}`)).json.data;
      assert.equal(thread.turns, 0, `${id} was not reached`);
    }
    assert.equal((await runsOf("chatty")).runs.length, 2, "no refused message started a run");
    assert.equal((await runsOf("other")).runs.length, 0);
    await workbenchCall(wb, "DELETE", `/api/threads/${own}`);
  });

  await t.step(
    "Runs groups the thread's runs under one row; a run of no thread is as before",
    async () => {
      const plain = await workbenchCall(wb, "POST", "/api/harnesses/chatty/runs", {
        input: "two: alone",
      });
      assert.equal(plain.json.data.status, "success");
      await openPage(page, `${wb.url}/h/chatty/runs`);
      const row = page.locator(`[data-testid="thread-row"][data-thread-id="${threadId}"]`);
      await row.waitFor();
      assert.equal(await row.getByTestId("thread-turns").innerText(), "2 turns");
      const order = await page.locator(".runs-table tbody tr").evaluateAll((trs) =>
        trs.map((tr) =>
          tr.getAttribute("data-run-id") ?? `thread:${tr.getAttribute("data-thread-id")}`
        )
      );
      assert.deepEqual(order, [
        plain.json.data.run_id,
        `thread:${threadId}`,
        second.run_id,
        first.run_id,
      ]);
      assert.equal(await page.locator("tr.thread-run").count(), 2, "both runs under the thread");
      assert.equal(
        await page.locator(`tr[data-run-id="${plain.json.data.run_id}"].thread-run`).count(),
        0,
      );
      for (const width of [1280, 1000]) {
        await page.setViewportSize({ width, height: 800 });
        assert.deepEqual(await cutCells(), [], `no column but the input is cut at ${width} px`);
        await shot(`runs-${width}`);
      }
      await page.setViewportSize({ width: 1280, height: 800 });
    },
  );

  await t.step("the thread view shows both turns, each linking to its run's Trace", async () => {
    await page.getByTestId("view-conversation").click();
    await page.waitForURL((u) => u.searchParams.get("thread") === threadId);
    const turns = page.getByTestId("thread-turn");
    await turns.first().waitFor();
    assert.equal(await turns.count(), 2);
    assert.match(await turns.nth(0).innerText(), /one: hello[\s\S]*Answer one\./);
    assert.match(await turns.nth(1).innerText(), /two: and now\?[\s\S]*Answer two\./);
    await shot("thread-1280");
    await page.setViewportSize({ width: 1000, height: 800 });
    await shot("thread-1000");
    await page.setViewportSize({ width: 1280, height: 800 });
    for (const [i, run] of [[0, first], [1, second]] as const) {
      await turns.nth(i).getByTestId("turn-trace-link").click();
      await page.waitForURL((u) => u.pathname === "/h/chatty/trace");
      assert.equal(new URL(page.url()).searchParams.get("run"), run.run_id);
      await page.locator(".trace-run code", { hasText: run.run_id }).waitFor();
      // Trace links back to the conversation.
      await page.getByTestId("trace-thread").getByRole("link").click();
      await page.getByTestId("thread-view").waitFor();
    }
  });

  await t.step("the server renders the thread view; an unknown thread says so", async () => {
    const html = await (await fetch(`${wb.url}/h/chatty/runs?thread=${threadId}`)).text();
    assert.match(html, /data-testid="thread-view"/);
    assert.match(html, /Answer two\./);
    const unknown = `${wb.url}/h/chatty/runs?thread=thr_01JUNKNOWN0000000000000000`;
    const answered = await fetch(unknown);
    await answered.body?.cancel();
    assert.equal(answered.status, 404, "an unknown thread's page is not found");
    await openPage(page, unknown);
    await page.getByText("No such thread").waitFor();
    tb.takeErrors(/thr_01JUNKNOWN|status of 404/);
  });

  await t.step("a new frame, or the page reloaded, starts a new thread", async () => {
    await openPage(page, `${wb.url}/h/chatty/use`);
    await inner.locator("#log-empty").waitFor();
    await page.getByTestId("new-conversation").click();
    await inner.locator("#input").fill("one: again");
    await inner.locator("#input").press("Enter");
    await inner.locator(".turn-harness .status-success").waitFor();
    const threads = (await workbenchCall(wb, "GET", "/api/harnesses/chatty/threads")).json.data
      .threads;
    assert.equal(threads.length, 2);
    assert.notEqual(threads[0].thread_id, threadId);
    assert.equal(threads[0].turns, 1);
    // The page reloading itself is a new frame session too.
    await preview().evaluate(() => location.reload());
    await inner.locator("#log-empty").waitFor();
    await inner.locator("#input").fill("two: after a reload");
    await inner.locator("#input").press("Enter");
    await inner.locator(".turn-harness .status-success").waitFor();
    const after = (await workbenchCall(wb, "GET", "/api/harnesses/chatty/threads")).json.data
      .threads;
    assert.equal(after.length, 3);
    assert.deepEqual(after.map((x: Json) => x.turns), [1, 1, 2]);
  });

  await t.step("a long thread across pages: its newest runs, the rest on demand", async () => {
    const long = (await workbenchCall(wb, "POST", "/api/harnesses/chatty/threads", {})).json.data
      .thread_id;
    for (let i = 1; i <= 5; i++) {
      const r = await workbenchCall(wb, "POST", `/api/threads/${long}/run`, {
        input: `one: b${i}`,
      });
      assert.equal(r.json.data.status, "success");
    }
    for (let i = 1; i <= 21; i++) {
      await workbenchCall(wb, "POST", "/api/harnesses/chatty/runs", { input: `two: p${i}` });
    }
    await openPage(page, `${wb.url}/h/chatty/runs`);
    const row = page.locator(`[data-testid="thread-row"][data-thread-id="${long}"]`);
    assert.equal(await row.getByTestId("thread-turns").innerText(), "5 turns, 4 on this page");
    assert.equal(await page.locator("tr.thread-run").count(), 3, "its newest three");
    const more = page.getByRole("button", { name: "Show 1 more run of this thread" });
    await more.click();
    assert.equal(await page.locator("tr.thread-run").count(), 4);
    assert.deepEqual(await cutCells(), []);
    await shot("runs-paged-1280");
    await page.setViewportSize({ width: 1000, height: 800 });
    assert.deepEqual(await cutCells(), []);
    await shot("runs-paged-1000");
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByRole("link", { name: "Older →" }).click();
    await page.waitForURL((u) => u.searchParams.has("before"));
    await row.waitFor();
    assert.equal(await row.getByTestId("thread-turns").innerText(), "5 turns, 1 on this page");
    assert.equal(
      await page.locator(`[data-testid="thread-row"][data-thread-id="${threadId}"]`).count(),
      1,
      "the first thread, on the older page",
    );
  });

  await t.step("nothing failed in the page and nothing left 127.0.0.1", () => {
    assert.deepEqual(tb.errors, []);
    assert.deepEqual(tb.foreign, []);
  });
});
