/**
 * The chat's slash commands in Chromium at 1280×800 and 1000 px, with no copilot model: the banner
 * and the empty chat say what the commands are; typing `/` lists them, narrowed as the name is typed,
 * with arrows, Tab and Enter completing; `/run` starts a live run shown as the copilot's tool call
 * and run artifact, the workspace follows the run, `/steer` and `/stop` act on it, and `/help`
 * answers the list. No page errors. Screenshots go to tests/.artifacts/slash-commands/.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { launchBrowser, openPage } from "../helpers/browser.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir } from "../helpers/temp.ts";
import { startWorkbenchProcess } from "../helpers/workbench.ts";

Deno.test("slash commands in the chat: completion, /run, /steer, /stop, /help", async (t) => {
  await using home = await tempDir("fw-slu-home-");
  await using cwd = await tempDir("fw-slu-cwd-");
  await writeHarness(join(cwd.path, "harnesses"), "slow", {
    name: "Slow",
    model: scripted([
      { text: "Looking.", delay_ms: 1500, tool_calls: [{ name: "list_files", arguments: {} }] },
      { text: "Hello.", delay_ms: 4000 },
      { text: "Bonjour." },
    ]),
    tools: [{ builtin: "list_files" }],
  });
  await using wb = await startWorkbenchProcess({ home: home.path, cwd: cwd.path });
  await using tb = await launchBrowser();
  const { page } = tb;
  const shot = (name: string) => tb.screenshot("slash-commands", name);
  const composer = page.locator("#composer");
  const menu = page.locator("#slash-menu");
  const replies = page.locator(".msg-assistant[data-message-id]");

  await t.step("the banner and the empty chat say what the commands are", async () => {
    await openPage(page, `${wb.url}/h/slow`);
    assert.match(await page.getByTestId("no-copilot").innerText(), /type \/ \(\/run hello/);
    assert.match(await page.getByTestId("commands-note").innerText(), /no model needed/);
    const suggestions = await page.locator(".suggestions .suggestion").allInnerTexts();
    assert.deepEqual(suggestions, ["/run hello", "/measure", "/eval", "/help"]);
    await shot("empty-1280");
    await page.setViewportSize({ width: 1000, height: 800 });
    await shot("empty-1000");
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  await t.step("typing / lists the commands; arrows, Tab and Enter complete", async () => {
    await composer.click();
    await composer.type("/");
    await menu.waitFor();
    const all = await menu.locator("[data-command]").evaluateAll((els) =>
      els.map((e) => e.getAttribute("data-command"))
    );
    assert.deepEqual(all, [
      "run",
      "steer",
      "stop",
      "fork",
      "eval",
      "propose",
      "measure",
      "remember",
      "help",
    ]);
    assert.equal(await composer.getAttribute("aria-expanded"), "true");
    await shot("menu-1280");
    await composer.type("r");
    assert.deepEqual(
      await menu.locator("[data-command]").allInnerTexts(),
      [
        "/run <input>\nRun the selected harness with this input; it goes on live (/steer, /stop)",
        "/remember <text>\nRemember a fact across conversations (Settings › Memory lists it)",
      ],
    );
    await composer.press("ArrowDown");
    assert.equal(
      await menu.locator('[aria-selected="true"]').getAttribute("data-command"),
      "remember",
    );
    await composer.press("ArrowDown");
    assert.equal(await menu.locator('[aria-selected="true"]').getAttribute("data-command"), "run");
    await composer.press("Tab");
    assert.equal(await composer.inputValue(), "/run ");
    await menu.waitFor({ state: "detached" });
    await composer.press("Escape");
  });

  let runId = "";
  await t.step(
    "/run starts a live run: the copilot's tool call, a run artifact, the trace",
    async () => {
      await composer.type("Greet me");
      await composer.press("Enter");
      const reply = replies.last();
      await reply.locator('[data-tool="execute_run"]').waitFor();
      await reply.locator('[data-artifact="run"]').waitFor();
      assert.match(await reply.innerText(), /Started run `?run_\w+`? of slow/);
      // The run is selected; its card opens its trace, which follows it live.
      await page.waitForURL(/\/h\/slow\?.*run=run_/);
      runId = new URL(page.url()).searchParams.get("run")!;
      assert.match(runId, /^run_/);
      await reply.locator('[data-artifact="run"] a').click();
      await page.waitForURL(/\/h\/slow\/trace\?.*run=run_/);
      await page.getByTestId("trace").waitFor();
      await shot("run-1280");
    },
  );

  await t.step("/steer and /stop (completed from /st) act on the run", async () => {
    await composer.fill("/steer Answer in French.");
    await composer.press("Enter");
    await page.locator('.msg-assistant[data-message-id] [data-tool="steer_run"]').waitFor();
    await composer.fill("");
    await composer.type("/st");
    assert.deepEqual(
      await menu.locator("[data-command]").evaluateAll((els) =>
        els.map((e) => e.getAttribute("data-command"))
      ),
      ["steer", "stop"],
    );
    await composer.press("ArrowDown");
    await composer.press("Enter");
    assert.equal(await composer.inputValue(), "/stop ");
    await composer.press("Enter");
    const stop = page.locator('.msg-assistant[data-message-id] [data-tool="stop_run"]');
    await stop.waitFor();
    assert.match(await replies.last().innerText(), /stops at its next turn boundary/);
    await page.setViewportSize({ width: 1000, height: 800 });
    await shot("stop-1000");
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  await t.step("/help answers the list, stored like any turn", async () => {
    await composer.fill("/help");
    await composer.press("Enter");
    await page.waitForFunction(() =>
      [...document.querySelectorAll(".msg-assistant[data-message-id]")].some((m) =>
        (m.textContent ?? "").includes("/fork <seq> <name>")
      )
    );
    // A refresh finds the whole conversation again.
    await page.reload();
    await page.waitForSelector("html[data-hydrated]");
    const texts = await page.locator(".msg[data-message-id]").allInnerTexts();
    assert.equal(texts.length, 8);
    assert.match(texts.at(-1)!, /\/remember <text>/);
    await shot("help-1280");
  });

  await t.step("nothing failed in the page and nothing left 127.0.0.1", () => {
    assert.deepEqual(tb.errors, []);
    assert.deepEqual(tb.foreign, []);
  });
});
