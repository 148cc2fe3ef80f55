/**
 * Tool approvals in Chromium: a harness with `approvals: {tools: [file_write]}` whose scripted model
 * writes a file. A run started from the Run panel waits: its Trace shows the card (the tool, its
 * arguments, the diff of the file's content now against the proposed content, the expiry) and the
 * rail's badge counts 1; Approve writes the file and the run succeeds, and the badge counts 0. A
 * second run denied from the card with a reason: the journal's tool_result says "denied by a person:
 * <reason>", and the Approvals filter shows the request and the decision. A run started from the
 * chat (`/run`) shows the same card in the chat, decided there. No page errors, nothing leaves
 * 127.0.0.1; screenshots at 1280 and 1000 px go to tests/.artifacts/approvals/.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { launchBrowser, openPage } from "../helpers/browser.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir } from "../helpers/temp.ts";
import { startWorkbenchProcess, workbenchCall } from "../helpers/workbench.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const NOTE = "workspace/notes.txt";

/** The rail's count, once it says `n`. */
async function badgeCounts(page: Page, n: number): Promise<void> {
  await page.locator(`[data-testid="approvals-badge"][data-count="${n}"]`).waitFor();
}

/** Starts a run from the Run panel and waits for its Trace. */
async function runFromPanel(page: Page, url: string, input: string): Promise<string> {
  await openPage(page, `${url}/h/writer/trace`);
  await page.locator("#run-input").fill(input);
  await page.getByTestId("run-submit").click();
  await page.waitForURL(/[?&]run=run_/);
  return new URL(page.url()).searchParams.get("run")!;
}

Deno.test("approvals in the workbench: the Trace card, the chat card, the rail's count", async (t) => {
  await using home = await tempDir("fw-apr-ui-home-");
  await using cwd = await tempDir("fw-apr-ui-cwd-");
  const dir = await writeHarness(join(cwd.path, "harnesses"), "writer", {
    name: "Note writer",
    model: scripted([{ text: "Say write." }], {
      scenarios: [{
        match: "^write",
        replies: [
          {
            tool_calls: [{ name: "file_write", arguments: { path: NOTE, content: "proposed\n" } }],
          },
          { text: "Done." },
        ],
      }],
    }),
    tools: [{ builtin: "file_write" }],
    approvals: { tools: ["file_write"] },
    limits: { max_turns: 4 },
  }, { [NOTE]: "existing\n" });
  await using wb = await startWorkbenchProcess({ home: home.path, cwd: cwd.path });
  await using tb = await launchBrowser();
  const { page } = tb;
  const shot = (name: string) => tb.screenshot("approvals", name);
  const card = page.locator('.trace [data-testid="approval-card"]');

  await t.step(
    "a waiting run's Trace shows the card with the diff; the rail counts 1",
    async () => {
      await openPage(page, `${wb.url}/h/writer/trace`);
      await badgeCounts(page, 0);
      await runFromPanel(page, wb.url, "write the note");
      await card.waitFor();
      assert.equal(await card.getAttribute("data-tool"), "file_write");
      const diff = card.getByTestId("approval-diff");
      await diff.waitFor();
      assert.equal(await diff.getAttribute("data-path"), NOTE);
      const lines = await diff.locator(".diff span").allInnerTexts();
      assert.ok(lines.some((l) => l.trim() === "-existing"), lines.join("|"));
      assert.ok(lines.some((l) => l.trim() === "+proposed"), lines.join("|"));
      assert.match(await card.locator(".approval-args").innerText(), /proposed/);
      assert.match(await card.locator(".approval-expiry").innerText(), /expires in 10 min/);
      await badgeCounts(page, 1);
      assert.match(await page.locator(".waiting-list").innerText(), /file_write/);
      assert.equal(await Deno.readTextFile(join(dir, NOTE)), "existing\n", "nothing written yet");
      await shot("trace-card-1280");
      await page.setViewportSize({ width: 1000, height: 800 });
      await shot("trace-card-1000");
      await page.setViewportSize({ width: 1280, height: 800 });
    },
  );

  await t.step("Approve: the file is written, the run succeeds, the rail counts 0", async () => {
    await card.getByTestId("approve").click();
    await card.waitFor({ state: "detached" });
    await page.locator("a[download]").waitFor({ timeout: 20_000 });
    await page.locator('.trace-run [data-status="success"]').waitFor();
    assert.equal(await Deno.readTextFile(join(dir, NOTE)), "proposed\n");
    await badgeCounts(page, 0);
    const runId = new URL(page.url()).searchParams.get("run")!;
    const view = (await workbenchCall(wb, "GET", `/api/runs/${runId}`)).json.data;
    assert.equal(view.run.status, "success");
  });

  await t.step("Deny with a reason: the model reads it in the tool_result", async () => {
    await Deno.writeTextFile(join(dir, NOTE), "existing\n");
    const runId = await runFromPanel(page, wb.url, "write it again");
    await card.waitFor();
    await badgeCounts(page, 1);
    await card.locator('input[name="approval-reason"]').fill("not this file");
    await card.getByTestId("deny").click();
    await card.waitFor({ state: "detached" });
    await page.locator("a[download]").waitFor({ timeout: 20_000 });
    await badgeCounts(page, 0);
    const view = (await workbenchCall(wb, "GET", `/api/runs/${runId}`)).json.data;
    const result = view.events.find((e: Json) => e.type === "tool_result").payload;
    assert.equal(result.ok, false);
    assert.equal(result.error.message, "denied by a person: not this file");
    assert.equal(await Deno.readTextFile(join(dir, NOTE)), "existing\n");
    // The Approvals filter shows the request and the decision, readably.
    await page.locator('.type-filters [data-group="approvals"]').click();
    await page.waitForURL(/types=/);
    const rows = page.locator(".event-list .event-row");
    await page.waitForFunction(() =>
      document.querySelectorAll(".event-list .event-row").length === 2
    );
    assert.deepEqual(await rows.locator(".ev-type").allInnerTexts(), [
      "approval_requested",
      "approval_decided",
    ]);
    assert.match(await rows.nth(0).innerText(), /file_write\(.*\) waits for a person/);
    assert.match(await rows.nth(1).innerText(), /denied by workbench: not this file/);
    await shot("approvals-filter-1280");
  });

  await t.step("a run started from the chat shows the card in the chat", async () => {
    await openPage(page, `${wb.url}/h/writer/overview`);
    const composer = page.locator("#composer");
    await composer.fill("/run write from the chat");
    await composer.press("Enter");
    const chatCard = page.locator('[data-testid="chat-approvals"] [data-testid="approval-card"]');
    await chatCard.waitFor({ timeout: 20_000 });
    await chatCard.getByTestId("approval-diff").waitFor();
    assert.match(await chatCard.innerText(), /file_write/);
    await badgeCounts(page, 1);
    await shot("chat-card-1280");
    await page.setViewportSize({ width: 1000, height: 800 });
    await chatCard.getByTestId("approve").scrollIntoViewIfNeeded();
    await shot("chat-card-1000");
    await page.setViewportSize({ width: 1280, height: 800 });
    await chatCard.getByTestId("approve").click();
    await chatCard.waitFor({ state: "detached" });
    await badgeCounts(page, 0);
    for (let i = 0; i < 100; i++) {
      if (await Deno.readTextFile(join(dir, NOTE)) === "proposed\n") break;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(await Deno.readTextFile(join(dir, NOTE)), "proposed\n");
  });

  await t.step("nothing failed in the page and nothing left 127.0.0.1", () => {
    assert.deepEqual(tb.errors, []);
    assert.deepEqual(tb.foreign, []);
  });
});
