/**
 * The workbench pages in a real browser (Debian's Chromium through playwright-core), against the real
 * `framework workbench` process with a scripted copilot: chat to create and run a harness, read the
 * run in Trace, edit the spec (and be refused a frozen field), apply a proposal with one of two code
 * changes, delete a memory under Settings › Memory, and find the conversation again after a refresh.
 * Each tab is photographed at 1280×800 into tests/.artifacts/ui/.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { launchBrowser, openPage } from "../helpers/browser.ts";
import { tempDir } from "../helpers/temp.ts";
import { startWorkbenchProcess } from "../helpers/workbench.ts";

const FACT = "Refunds above 100 EUR need a manager's approval";
const TARGET_INPUT = "I want a refund for order 42";

const SCENARIOS = [
  {
    match: "CREATE",
    replies: [
      {
        tool_calls: [{
          name: "create_harness",
          arguments: {
            id: "refunds",
            name: "Refunds",
            instructions: "You handle refund requests politely.",
          },
        }],
      },
      {
        text:
          "Created **refunds**. It runs offline with a scripted model until you give it a real one.",
      },
    ],
  },
  {
    match: "RUNIT",
    replies: [
      { tool_calls: [{ name: "execute_run", arguments: { input: TARGET_INPUT } }] },
      { text: "The run finished with `success`. Open it in Trace to see every event." },
    ],
  },
  {
    match: "PROPOSE",
    replies: [
      {
        tool_calls: [{
          name: "propose_improvement",
          arguments: { objective: "Ask for the order number first" },
        }],
      },
      { text: "A proposal is queued in Improve. Nothing changes until you apply it." },
    ],
  },
  {
    // A slow turn: the tool runs at once, the reply takes 20 s (it is stopped long before).
    match: "SLOWLY",
    replies: [
      { tool_calls: [{ name: "list_harnesses", arguments: {} }] },
      { text: "This reply comes too late.", delay_ms: 20_000 },
    ],
  },
  {
    match: "REMEMBER",
    replies: [
      { tool_calls: [{ name: "remember_memory", arguments: { content: FACT, scope: "global" } }] },
      { text: "I will remember that." },
    ],
  },
];

/** The evolver's answer: one YAML change and two code changes. */
const EVOLVER_ANSWER = JSON.stringify({
  rationale: "Runs end fast; one turn fewer is enough. Two notes help the model with refunds.",
  yaml_changes: [{ path: "limits.max_turns", op: "set", value: 5 }],
  code_changes: [
    {
      path: "workspace/refund-policy.md",
      content: "# Refund policy\n\nAsk for the order number.\n",
    },
    { path: "workspace/tone.md", content: "# Tone\n\nBe brief.\n" },
  ],
});

Deno.test("workbench pages: chat, trace, spec, improve, memory and refresh in Chromium", async (t) => {
  await using home = await tempDir("fw-ui-home-");
  await using cwd = await tempDir("fw-ui-cwd-");
  const script = join(home.path, "copilot-script.json");
  await Deno.writeTextFile(script, JSON.stringify({ scenarios: SCENARIOS }));
  await using wb = await startWorkbenchProcess({
    home: home.path,
    cwd: cwd.path,
    env: { FRAMEWORK_COPILOT_MODEL: `scripted:${script}` },
  });
  await using tb = await launchBrowser();
  const { page } = tb;
  const refunds = join(cwd.path, "harnesses", "refunds");

  /** Sends a chat message and waits until the reply is stored and shown. */
  const chat = async (text: string) => {
    const before = await page.locator(".msg-assistant[data-message-id]").count();
    await page.locator("#composer").fill(text);
    await page.locator("#composer").press("Enter");
    await page.locator(".msg-assistant[data-message-id]").nth(before).waitFor();
    await page.locator(".msg-live").waitFor({ state: "detached" });
  };

  await t.step("open the workbench: empty states say what to do", async () => {
    await openPage(page, wb.url);
    assert.match(await page.locator(".island-workspace").innerText(), /No harness selected/);
    assert.match(
      await page.locator(".island-workspace").innerText(),
      /ask the copilot to create one/,
    );
    assert.match(await page.locator(".island-rail").innerText(), /No harnesses yet/);
    assert.match(await page.locator(".chat-log").innerText(), /Ask the copilot/);
    await tb.screenshot("ui", "00-first-visit");
  });

  await t.step(
    "chat with the copilot to create a harness: tool activity, artifact, selection",
    async () => {
      await chat("CREATE a harness for refund questions");
      const reply = page.locator(".msg-assistant").last();
      assert.match(await reply.innerText(), /Created refunds/);
      // The tool call is shown inline and opens to its arguments and result.
      const tool = reply.locator('details[data-tool="create_harness"]');
      assert.equal(await tool.getAttribute("open"), null, "collapsed at first");
      await tool.locator(":scope > summary").click();
      assert.match(await tool.innerText(), /refund requests politely/);
      assert.match(await tool.innerText(), /"created": "refunds"|created/);
      assert.equal(await reply.locator('[data-artifact="harness"]').count(), 1);
      // The turn's selection moves the workspace and the rail to the new harness.
      await page.waitForURL(/\/h\/refunds/);
      assert.equal(await page.locator(".ws-title h1").innerText(), "Refunds");
      assert.equal(await page.locator('.tree-item.active[data-harness="refunds"]').count(), 1);
      assert.equal(
        await page.locator('select[aria-label="Selected harness"]').inputValue(),
        "refunds",
      );
      await Deno.stat(join(refunds, "harness.yaml"));
    },
  );

  await t.step("a harness without runs: every tab says what to do", async () => {
    await page.locator("body").press("3");
    await page.waitForURL(/\/h\/refunds\/runs/);
    await page.locator(".empty", { hasText: "No runs yet" }).waitFor();
    assert.match(await page.locator(".empty").innerText(), /Ask the copilot to run this harness/);
    await tb.screenshot("ui", "10-empty-runs");
    await page.locator("body").press("4");
    await page.locator(".empty", { hasText: "No runs to trace yet" }).waitFor();
    await tb.screenshot("ui", "11-empty-trace");
    await page.locator("body").press("7");
    await page.locator(".empty", { hasText: "No proposals yet" }).waitFor();
    assert.match(await page.locator(".empty").innerText(), /propose an improvement/);
    await tb.screenshot("ui", "12-empty-improve");
    await page.locator("body").press("2");
    await page.locator(".empty", { hasText: "No runs yet" }).waitFor();
    await tb.screenshot("ui", "13-empty-overview");
  });

  await t.step("a turn streams live and can be stopped", async () => {
    await page.locator("#composer").fill("SLOWLY list the harnesses");
    await page.locator("#composer").press("Enter");
    const live = page.locator(".msg-live");
    await live.waitFor();
    // The tool call shows, done, while the reply is still being written.
    await live.locator('details[data-tool="list_harnesses"] [aria-label="succeeded"]').waitFor();
    assert.equal(await live.getAttribute("aria-busy"), "true");
    await tb.screenshot("ui", "14-chat-live");
    // A refresh mid-turn: the page knows the copilot is still at it, and can stop it.
    await page.reload();
    await page.waitForSelector("html[data-hydrated]");
    await page.locator('[data-testid="pending-turn"]').waitFor();
    assert.equal(await page.locator(".msg-live").count(), 0);
    await page.getByRole("button", { name: "Stop" }).click();
    await page.locator('[data-testid="pending-turn"]').waitFor({ state: "detached" });
    const reply = page.locator(".msg-assistant").last();
    assert.match(await reply.innerText(), /could not finish \(error: The run was stopped\)/);
    assert.doesNotMatch(await reply.innerText(), /too late/);
  });

  await t.step("a refused message shows its error and the next one goes through", async () => {
    const before = await page.locator(".msg-assistant[data-message-id]").count();
    await page.locator("#composer").fill("x".repeat(100_001));
    await page.locator("#composer").press("Enter");
    const error = page.locator(".msg-live .error-line");
    await error.waitFor();
    assert.match(await error.innerText(), /at most 100,000 characters/);
    tb.takeErrors(/HTTP 400 POST .*\/messages$|status of 400/);
    await page.locator("#composer").fill("SLOWLY again");
    await page.locator("#composer").press("Enter");
    await page.locator('.msg-live [data-tool="list_harnesses"]').waitFor();
    await page.getByRole("button", { name: "Stop" }).click();
    await page.locator(".msg-assistant[data-message-id]").nth(before).waitFor();
    await page.locator(".msg-live").waitFor({ state: "detached" });
  });

  let runId = "";
  await t.step("run it from the chat; the run becomes the selection", async () => {
    await chat("RUNIT with a refund question");
    const reply = page.locator(".msg-assistant").last();
    assert.match(await reply.innerText(), /The run finished/);
    await page.locator('[data-testid="selected-run"]').waitFor();
    runId = new URL(page.url()).searchParams.get("run") ?? "";
    assert.match(runId, /^run_[0-9A-Z]{26}$/);
    assert.equal(await reply.locator('[data-artifact="run"] [data-status="success"]').count(), 1);
    await tb.screenshot("ui", "01-chat-after-run");
  });

  await t.step(
    "open the run in Trace: integrity, an event's payload, the folded context",
    async () => {
      await page.locator(".msg-assistant").last().locator('[data-artifact="run"] a').click();
      await page.waitForURL(/\/h\/refunds\/trace\?/);
      const integrity = page.locator('[data-integrity="ok"]');
      await integrity.waitFor();
      assert.match(await integrity.innerText(), /Hash chain verified/);
      assert.match(await integrity.innerText(), /all \d+ events are intact/);
      await page.locator(".event-row:has(.type-model_call)").first().click();
      const detail = page.locator(".event-detail .detail");
      await detail.waitFor();
      assert.match(await detail.innerText(), /payload/i);
      assert.match(await detail.innerText(), /message_count/);
      assert.match(await detail.innerText(), /since start/);
      const context = page.locator('[data-testid="folded-context"]');
      await context.waitFor();
      assert.match(await context.innerText(), new RegExp(TARGET_INPUT));
      assert.match(await context.innerText(), /refund requests politely/);
      // A type filter narrows the list to that type.
      await page.locator('.type-filters [data-type="model_response"]').click();
      const types = await page.locator(".event-list .ev-type").allInnerTexts();
      assert.ok(types.length > 0 && types.every((x) => x === "model_response"), types.join(","));
      await page.locator(".type-filters .filter").first().click();
      // j moves to the next event.
      const seq = Number(await detail.getAttribute("data-seq"));
      await page.locator("body").press("j");
      await page.waitForFunction(
        (s) =>
          document.querySelector(".event-detail .detail")?.getAttribute("data-seq") === String(s),
        seq + 1,
      );
      await tb.screenshot("ui", "04-trace");
    },
  );

  await t.step("Runs and Overview, reached with the keys 3 and 2", async () => {
    await page.locator("body").press("3");
    await page.waitForURL(/\/h\/refunds\/runs/);
    await page.locator(`tr[data-run-id="${runId}"]`).waitFor();
    assert.match(await page.locator(`tr[data-run-id="${runId}"]`).innerText(), /success/);
    await tb.screenshot("ui", "03-runs");
    await page.locator("body").press("2");
    await page.waitForURL((u) => u.pathname === "/h/refunds");
    const overview = page.locator('[data-testid="overview"]');
    await overview.waitFor();
    assert.match(await overview.innerText(), /scripted:starter-script/);
    assert.match(await overview.innerText(), /100%/);
    assert.match(await overview.innerText(), /Spec version/);
    await tb.screenshot("ui", "02-overview");
  });

  await t.step(
    "Spec: a field edit goes through the construction API; a frozen field needs a confirmation",
    async () => {
      await page.locator('[data-tab="spec"]').click();
      await page.locator('[data-testid="spec"]').waitFor();
      await page.locator("#field-path").fill("limits.max_turns");
      await page.locator("#field-value").fill("4");
      await page.getByRole("button", { name: "Save" }).click();
      await page.locator(".notice-toast").filter({ hasText: "Set limits.max_turns" }).waitFor();
      await page.locator(".yaml").filter({ hasText: "max_turns: 4" }).waitFor();
      assert.match(await Deno.readTextFile(join(refunds, "harness.yaml")), /max_turns: 4/);

      // The construction API's refusal shows next to the field.
      await page.locator("#field-value").fill('"many"');
      await page.getByRole("button", { name: "Save" }).click();
      const fieldError = page.locator('[data-testid="field-error"]');
      await fieldError.waitFor();
      assert.match(await fieldError.innerText(), /max_turns/);
      // The refused request is the one the page shows; the browser logs it, as it should.
      assert.ok(tb.takeErrors(/HTTP 400 POST .*\/api\/harnesses\/refunds\/set$/).length >= 1);
      tb.takeErrors(/Failed to load resource: the server responded with a status of 400/);
      assert.match(await Deno.readTextFile(join(refunds, "harness.yaml")), /max_turns: 4/);

      // A frozen safety field is marked, and is only saved after the person confirms it.
      assert.match(await page.locator('tr[data-path="model.name"]').innerText(), /frozen/);
      await page.locator("#field-path").fill("model.name");
      await page.locator('[data-testid="frozen-note"]').waitFor();
      assert.match(
        await page.locator('[data-testid="frozen-note"]').innerText(),
        /frozen safety field/,
      );
      await page.locator("#field-value").fill("confirmed-script");
      await page.getByRole("button", { name: "Save" }).click();
      await page.locator('[data-testid="confirm-frozen"]').waitFor();
      await tb.screenshot("ui", "05-spec");
      assert.match(await Deno.readTextFile(join(refunds, "harness.yaml")), /name: starter-script/);
      await page.getByRole("button", { name: "Cancel" }).click();
      assert.match(await Deno.readTextFile(join(refunds, "harness.yaml")), /name: starter-script/);
      // The API refuses it without the confirmation, whatever a page does.
      const res = await fetch(`${wb.url}/api/harnesses/refunds/set`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ path: "model.name", value: "other" }),
      });
      assert.equal(res.status, 403);
      await res.body?.cancel();
      assert.match(await Deno.readTextFile(join(refunds, "harness.yaml")), /name: starter-script/);
    },
  );

  await t.step("Improve: apply the YAML change and one of two code changes", async () => {
    const set = await fetch(`${wb.url}/api/harnesses/refunds/set`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        path: "evolution.model",
        value: { provider: "scripted", name: "test-evolver", replies: [{ text: EVOLVER_ANSWER }] },
        confirm_frozen: true, // a person's confirmed edit: evolution.model is frozen otherwise
      }),
    });
    assert.equal(set.status, 200, await set.text());
    await chat("PROPOSE an improvement");
    await page.locator(".msg-assistant").last().locator('[data-artifact="proposal"] a').click();
    await page.waitForURL(/\/h\/refunds\/improve/);
    const proposal = page.locator("article.proposal");
    await proposal.waitFor();
    assert.match(await proposal.innerText(), /one turn fewer/);
    assert.equal(await proposal.locator(".code-change").count(), 2);
    const apply = page.locator('[data-testid="apply"]');
    assert.equal(await apply.isDisabled(), true, "nothing is ticked at first");
    assert.equal(await proposal.locator('input[type="checkbox"]:checked').count(), 0);
    await proposal.locator('input[name="apply_yaml"]').check();
    await proposal.locator('input[name="approve-c1"]').check();
    await tb.screenshot("ui", "06-improve");
    await apply.click();
    await proposal.locator('.proposal-head [data-status="partially_applied"]').waitFor();
    assert.equal(await proposal.locator('[data-change="c1"] [data-status="applied"]').count(), 1);
    assert.equal(await proposal.locator('[data-change="c2"] [data-status="pending"]').count(), 1);
    assert.equal(
      await Deno.readTextFile(join(refunds, "workspace", "refund-policy.md")),
      "# Refund policy\n\nAsk for the order number.\n",
    );
    await assert.rejects(Deno.stat(join(refunds, "workspace", "tone.md")), Deno.errors.NotFound);
    assert.match(await Deno.readTextFile(join(refunds, "harness.yaml")), /max_turns: 5/);
  });

  await t.step("Settings › Memory: inspect and delete a memory", async () => {
    await page.locator("#composer").waitFor();
    await chat("REMEMBER that big refunds need a manager");
    await page.locator(".rail-link", { hasText: "Settings › Memory" }).click();
    await page.waitForURL(/\/settings\/memory/);
    await page.waitForSelector("html[data-hydrated]");
    const item = page.locator(".memory-item", { hasText: FACT });
    await item.click();
    const detail = page.locator("article.memory-detail");
    await detail.waitFor();
    assert.match(await detail.innerText(), /global/);
    await tb.screenshot("ui", "07-memory");
    await page.getByRole("button", { name: "Delete…" }).click();
    await page.locator('[data-testid="confirm-delete"]').click();
    await page.locator(".empty", { hasText: "No memories yet" }).waitFor();
    const res = await fetch(`${wb.url}/api/memories`);
    assert.deepEqual((await res.json()).data.memories, []);
  });

  await t.step("refresh: the conversation, its artifacts and the selection are there", async () => {
    await openPage(page, wb.url);
    await page.waitForURL(/\/h\/refunds/);
    assert.equal(await page.locator(".msg-user").count(), 6);
    assert.equal(await page.locator(".msg-assistant").count(), 6);
    assert.match(await page.locator(".chat-title").innerText(), /CREATE a harness/);
    assert.equal(await page.locator(".artifact").count(), 3);
    assert.equal(
      await page.locator('select[aria-label="Selected harness"]').inputValue(),
      "refunds",
    );
    await page.reload();
    await page.waitForSelector("html[data-hydrated]");
    assert.equal(await page.locator(".msg-assistant").count(), 6);
  });

  await t.step("nothing failed in the page and nothing left 127.0.0.1", () => {
    assert.deepEqual(tb.errors, []);
    assert.deepEqual(tb.foreign, []);
  });
});
