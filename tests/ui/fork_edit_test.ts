/**
 * "Fork with an edit" in Chromium at 1280×800 and 1000 px: at a model call of a run, Trace's "Fork
 * here" offers to change the tool result the call was given (prefilled with the original); the fork's
 * bar says what changed, its resume journals `fork_edited` right after the replayed prefix, and the
 * context folded at the resumed call shows the replacement. No page errors. Screenshots go to
 * tests/.artifacts/fork-edit/.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { launchBrowser, openPage } from "../helpers/browser.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir } from "../helpers/temp.ts";
import { startWorkbenchProcess, workbenchCall } from "../helpers/workbench.ts";

Deno.test("fork with an edit: change a tool result in Trace, resume, see fork_edited", async (t) => {
  await using home = await tempDir("fw-fe-home-");
  await using cwd = await tempDir("fw-fe-cwd-");
  await writeHarness(join(cwd.path, "harnesses"), "desk", {
    name: "Desk",
    model: scripted([
      { tool_calls: [{ name: "list_files", arguments: {} }] },
      { text: "desk done" },
    ]),
    tools: [{ builtin: "list_files" }],
  }, { "notes/a.txt": "a\n" });
  await using wb = await startWorkbenchProcess({ home: home.path, cwd: cwd.path });
  const ran = await workbenchCall(wb, "POST", "/api/harnesses/desk/runs", { input: "List" });
  assert.equal(ran.json.data.status, "success", JSON.stringify(ran.json));
  const parentRun: string = ran.json.data.run_id;
  // Over HTTP: an edit the call cannot take is 400, an unknown field of it too; no folder is made.
  const trace = await workbenchCall(wb, "GET", `/api/runs/${parentRun}`);
  const second = trace.json.data.events.filter((e: { type: string }) => e.type === "model_call")[1]
    .seq;
  for (
    const edit of [
      { kind: "user_message", replacement: "x" },
      { kind: "tool_result", replacement: "x", call_id: "nope" },
      { kind: "tool_result", replacement: "x", path: "/etc/passwd" },
      { kind: "rewrite", replacement: "x" },
    ]
  ) {
    const refused = await workbenchCall(wb, "POST", `/api/runs/${parentRun}/fork`, {
      at: second,
      name: "refused",
      edit,
    });
    assert.equal(refused.status, 400, JSON.stringify(refused.json));
  }
  await assert.rejects(Deno.stat(join(cwd.path, "harnesses/refused")), Deno.errors.NotFound);
  await using tb = await launchBrowser();
  const { page } = tb;
  const shot = (name: string) => tb.screenshot("fork-edit", name);

  await t.step("the fork form offers the call's tool result, prefilled", async () => {
    await openPage(page, `${wb.url}/h/desk/trace?run=${parentRun}`);
    await page.getByTestId("fork-here").nth(1).click();
    const form = page.getByTestId("fork-form");
    await form.waitFor();
    const change = form.locator('select[name="fork-edit"]');
    const options = await change.locator("option").allInnerTexts();
    assert.deepEqual(options, [
      "nothing: resume with the same context",
      "the result of list_files (call_1_1)",
    ]);
    await change.selectOption("tool:call_1_1");
    const text = form.locator('textarea[name="fork-replacement"]');
    assert.match(await text.inputValue(), /notes/);
    await text.fill("The folder is empty.");
    await form.locator('input[name="fork-name"]').fill("desk-empty");
    await shot("fork-form-1280");
    await page.setViewportSize({ width: 1000, height: 800 });
    await text.scrollIntoViewIfNeeded();
    await shot("fork-form-1000");
    await page.setViewportSize({ width: 1280, height: 800 });
    await form.getByRole("button", { name: "Fork with the edit" }).click();
    await page.waitForURL(/\/h\/desk-empty(\?|$)/);
    const note = page.getByTestId("fork-edit-note");
    await note.waitFor();
    assert.match(await note.innerText(), /with the result of call_1_1 changed/);
    const yaml = await Deno.readTextFile(join(cwd.path, "harnesses/desk-empty/harness.yaml"));
    assert.match(
      yaml,
      /edit:\n\s+kind: tool_result\n\s+replacement: The folder is empty\.\n\s+call_id: call_1_1/,
    );
  });

  await t.step(
    "resume: fork_edited after the prefix; the resumed call is given the replacement",
    async () => {
      await page.getByTestId("resume").click();
      await page.waitForURL(/\/h\/desk-empty\/trace\?.*run=run_/);
      await page.locator("a[download]").waitFor({ timeout: 20_000 });
      const row = page.locator(".event-row", {
        has: page.locator(".ev-type", { hasText: "fork_edited" }),
      });
      await row.waitFor();
      assert.match(
        await row.locator(".ev-summary").innerText(),
        /result of list_files \(call_1_1\) · .*→ The folder is empty\./,
      );
      // The marker sits on the first event that was not replayed: the edit.
      assert.match(await page.locator(".event-row.reentry .ev-type").innerText(), /fork_edited/);
      await row.click();
      await page.locator(".detail[data-seq] .ev-type", { hasText: "fork_edited" }).waitFor();
      await shot("fork-edited-1280");
      const call = page.locator(".event-row:not(.replayed)", {
        has: page.locator(".ev-type", { hasText: "model_call" }),
      }).first();
      await call.click();
      const context = page.getByTestId("folded-context");
      await context.waitFor();
      assert.match(await context.innerText(), /The folder is empty\./);
      await page.setViewportSize({ width: 1000, height: 800 });
      await context.getByText("The folder is empty.").scrollIntoViewIfNeeded();
      await shot("resumed-context-1000");
      await page.setViewportSize({ width: 1280, height: 800 });
    },
  );

  await t.step("nothing failed in the page and nothing left 127.0.0.1", () => {
    assert.deepEqual(tb.errors, []);
    assert.deepEqual(tb.foreign, []);
  });
});
