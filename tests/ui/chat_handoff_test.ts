/**
 * Hand-offs in the chat, in Chromium: a turn whose run of A handed a task to B carries the hand-off
 * line (status, cost, turns, a link to B's run), the delegated share in its cost footer, and C as a
 * referral with its record and why it was not used. Both ways a chat starts a run: the copilot's
 * `execute_run` (a scripted copilot), whose result reports `delegations` and `delegated_cost_usd`,
 * and `/run`, whose run goes on live and whose hand-offs are read from its journal. No page errors;
 * screenshots at 1280 and 1000 px go to tests/.artifacts/chat-handoff/.
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
import { startWorkbenchProcess, workbenchCall } from "../helpers/workbench.ts";

const PRICE = { input_per_mtok: 1, output_per_mtok: 1 };
const USAGE = { input_tokens: 500, output_tokens: 500 };

Deno.test("a chat turn that delegated: the hand-off line, the delegated share, a referral", async (t) => {
  await using home = await tempHome();
  await using cwd = await tempDir("fw-ch-cwd-");
  await using scripts = await tempDir("fw-ch-script-");
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
  for (const d of [a, b, c]) await trustFolder(d);
  for (let i = 0; i < 2; i++) {
    await (await startRun(b, { input: "x" })).result;
    await (await startRun(c, { input: "x" })).result;
  }
  const script = join(scripts.path, "copilot-script.yaml");
  await Deno.writeTextFile(
    script,
    JSON.stringify({
      scenarios: [{
        match: "HANDOFF",
        replies: [
          {
            tool_calls: [{
              name: "execute_run",
              arguments: { harness: "a", input: "How many?" },
            }],
          },
          { text: "A handed the count to b." },
        ],
      }],
    }),
  );
  await using wb = await startWorkbenchProcess({
    home: home.path,
    cwd: cwd.path,
    env: { FRAMEWORK_COPILOT_MODEL: `scripted:${script}` },
  });
  await using tb = await launchBrowser();
  const { page } = tb;
  const composer = page.locator("#composer");
  const replies = page.locator(".msg-assistant[data-message-id]");

  const checkBlock = async (block: ReturnType<typeof page.locator>) => {
    await block.waitFor();
    const handoff = block.getByTestId("handoff");
    // A live run's block shows before its hand-off ends; the hand-off's line comes when it has.
    await handoff.first().waitFor();
    assert.equal(await handoff.count(), 1);
    assert.match(await handoff.innerText(), /b\s+success \$0\.001 · 1 turns · run_/);
    assert.match(
      await block.getByTestId("referral").innerText(),
      /referral c 0% over 2 runs · eligible, a fitter peer was chosen/,
    );
    assert.match(
      await block.getByTestId("cost-footer").innerText(),
      /Delegated \$0\.001 of \$0\.003 \(33\.3%\)/,
    );
  };

  await t.step("the copilot's execute_run: its result reports the hand-offs", async () => {
    await openPage(page, `${wb.url}/h/a`);
    await composer.fill("HANDOFF count them");
    await composer.press("Enter");
    const reply = replies.last();
    await reply.locator('[data-tool="execute_run"]').waitFor();
    await checkBlock(reply.getByTestId("chat-handoffs"));
    // What the tool answered the copilot: the delegations and the delegated cost.
    const list = await workbenchCall(wb, "GET", "/api/conversations");
    const id: string = list.json.data.conversations[0].id;
    const view = await workbenchCall(wb, "GET", `/api/conversations/${id}`);
    const part = view.json.data.messages.flatMap((m: { parts: { name?: string }[] }) => m.parts)
      .find((p: { name?: string }) => p.name === "execute_run");
    const out = JSON.parse(part.result);
    assert.equal(out.delegated_cost_usd, 0.001);
    assert.deepEqual(
      out.delegations.map((d: { peer: string; status: string; turns: number }) => [
        d.peer,
        d.status,
        d.turns,
      ]),
      [["b", "success", 1]],
    );
    assert.deepEqual(out.referrals.map((r: { peer: string }) => r.peer), ["c"]);
    await tb.screenshot("chat-handoff", "execute-run-1280");
  });

  await t.step("/run: the live run's hand-offs come once it has handed over", async () => {
    // The reply is the one after those already shown: `last()` would find the first step's reply,
    // which has a run card and a hand-off too, until this one arrives.
    const before = await replies.count();
    await composer.fill("/run How many now?");
    await composer.press("Enter");
    const reply = replies.nth(before);
    await reply.locator('[data-artifact="run"]').waitFor();
    const block = reply.getByTestId("chat-handoffs");
    await checkBlock(block);
    await page.setViewportSize({ width: 1000, height: 800 });
    await block.scrollIntoViewIfNeeded();
    await tb.screenshot("chat-handoff", "slash-run-1000");
  });

  await t.step("the hand-off links to the child run", async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    const link = replies.last().getByTestId("handoff").getByRole("link");
    await link.click();
    await page.waitForURL(/\/h\/b\/trace\?.*run=run_/);
    await page.getByTestId("lineage").waitFor();
    assert.match(await page.getByTestId("lineage").innerText(), /Delegated by\s+a/);
  });

  await t.step("nothing failed in the page and nothing left 127.0.0.1", () => {
    assert.deepEqual(tb.errors, []);
    assert.deepEqual(tb.foreign, []);
  });
});
