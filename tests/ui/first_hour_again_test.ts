/**
 * The first hour, again (issue 31), in Chromium at 1280×800 and 1000 px: with the chat hidden the
 * header's Run button can be clicked; a stopped run reads "stopped" in Runs, the Trace chooser and
 * header, the Overview's failures and the chat's run artifact; the Spec tab keeps the frozen mark on
 * cut paths, shows the file first or beside the fields, and asks about a frozen field before it sends
 * anything; Versions counts the same runs in the timeline and the comparison and says why a case
 * failed; Use links its run to Trace; Improve drafts with an objective, shows old → new, and its
 * notices never cover a form. Screenshots go to tests/.artifacts/first-hour-again/.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import type { Locator, Page } from "playwright-core";
import { setField } from "../../lib/construct/set_field.ts";
import { runEval, runEvalOnText } from "../../lib/evals/run_eval.ts";
import { openHive } from "../../lib/hive/open.ts";
import { listSpecVersions } from "../../lib/hive/spec_versions.ts";
import { createRunService, startRun } from "../../lib/runs/service.ts";
import { launchBrowser, openPage } from "../helpers/browser.ts";
import { writeHarness } from "../helpers/harness.ts";
import { tempDir, tempHome } from "../helpers/temp.ts";
import { startWorkbenchProcess, workbenchCall } from "../helpers/workbench.ts";

const SET = `cases:
  - id: greet
    input: hello
    expect: [{ builtin: contains, text: Hi }]
  - id: sum
    input: add 2 and 3
    expect: [{ builtin: contains, text: "5" }]
`;

/** The evolver's answer (the harness's own scripted model answers an objective starting "Make"). */
const EVOLVER = JSON.stringify({
  rationale: "Shorter answers in fewer turns.",
  yaml_changes: [
    { path: "limits.max_turns", op: "set", value: 4 },
    { path: "instructions", op: "set", value: "Answer in one short line." },
  ],
  code_changes: [],
});

function model(name: string, hello: string) {
  return {
    provider: "scripted",
    name,
    max_retries: 0,
    scenarios: [
      { match: "^hello", replies: [{ text: hello }] },
      { match: "^add", replies: [{ text: "5" }] },
      { match: "^slow", replies: [{ text: "too late", delay_ms: 30_000 }] },
      { match: "^Make", replies: [{ text: EVOLVER }] },
      { match: ".", replies: [{ text: "**Hello** from the page." }] },
    ],
  };
}

/** The copilot runs the harness slowly (the test stops that run), then answers. */
const COPILOT = {
  scenarios: [{
    match: "^RUN SLOW",
    replies: [
      { tool_calls: [{ name: "execute_run", arguments: { harness: "demo", input: "slow one" } }] },
      { text: "The run ended before its answer." },
    ],
  }],
};

const VIEWPORTS = [{ width: 1280, height: 800 }, { width: 1000, height: 800 }];

/** Whether two boxes overlap. */
function overlap(
  a: { x: number; y: number; width: number; height: number },
  b: { x: number; y: number; width: number; height: number },
): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height &&
    b.y < a.y + a.height;
}

/** Whether the element at the centre of a locator is the locator's own (nothing covers it). */
async function uncovered(locator: Locator): Promise<boolean> {
  return await locator.evaluate((el) => {
    const r = el.getBoundingClientRect();
    const top = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
    return !!top && (top === el || el.contains(top));
  });
}

/** Scrolls the workspace to an element and waits for the smooth scroll to settle. */
async function into(page: Page, locator: Locator): Promise<void> {
  await locator.scrollIntoViewIfNeeded();
  await page.waitForTimeout(100);
}

Deno.test("first hour, again: Run reachable, stopped runs, Spec, Versions, Use and Improve", async (t) => {
  await using home = await tempHome();
  await using cwd = await tempDir("fw-fha-cwd-");
  const dir = await writeHarness(join(cwd.path, "harnesses"), "demo", {
    name: "Demo",
    instructions: "You answer briefly.",
    model: model("v0", "Hi!"),
    limits: { max_turns: 6, timeout_s: 60 },
    logging: { redact: { patterns: ["secret-[0-9]+"] } },
    // A frozen field with a long path: the Fields table cuts it, never its frozen mark.
    extensions: { team: { escalation_contact_for_refund_requests_over_the_limit: "ops" } },
  }, { "evals/smoke.yaml": SET });
  const db = openHive();
  const runs = createRunService();
  // v1: a live run and an eval; v2 (current): an eval with greet failing, a live run, a stopped run.
  await setField(dir, "model", model("v1", "Hi!"), { actor: "cli", policy: "local" });
  await (await startRun(dir, { input: "hello there" })).result;
  await runEval(db, runs, dir, { set: "smoke" });
  await setField(dir, "model", model("v2", "Hello"), { actor: "cli", policy: "local" });
  await runEval(db, runs, dir, { set: "smoke" });
  await (await startRun(dir, { input: "hello again" })).result;
  const slow = await startRun(dir, { input: "slow question" });
  slow.controls.stop("person", true);
  assert.equal((await slow.result).error?.reason, "stopped");
  // v1 measured again on a temporary copy: its eval runs are not in the folder.
  const ref = { id: "demo", dir };
  const v1 = listSpecVersions(db, ref).at(-1)!;
  await runEvalOnText(db, runs, dir, v1.yaml, { set: "smoke" });
  await runs.close();

  const script = join(home.path, "copilot.json");
  await Deno.writeTextFile(script, JSON.stringify(COPILOT));
  await using wb = await startWorkbenchProcess({
    home: home.path,
    cwd: cwd.path,
    env: { FRAMEWORK_COPILOT_MODEL: `scripted:${script}` },
  });
  await using tb = await launchBrowser();
  const { page } = tb;
  const shot = (name: string) => tb.screenshot("first-hour-again", name);

  await t.step("the API says why a run ended: a stopped run is error, reason stopped", async () => {
    const listed = (await workbenchCall(wb, "GET", "/api/harnesses/demo/runs")).json.data.runs;
    const row = listed.find((r: { run_id: string }) => r.run_id === slow.run_id);
    assert.deepEqual([row.status, row.reason, row.failure_signature], [
      "error",
      "stopped",
      "error:stopped",
    ]);
    assert.ok(listed.filter((r: { reason: unknown }) => r.reason === null).length >= 2);
    const trace = (await workbenchCall(wb, "GET", `/api/runs/${slow.run_id}?limit=1`)).json.data;
    assert.equal(trace.run.reason, "stopped");
  });

  await t.step(
    "a run the copilot started and a person stopped: the artifact says stopped",
    async () => {
      await page.setViewportSize(VIEWPORTS[0]!);
      await openPage(page, `${wb.url}/h/demo/overview`);
      await page.locator("#composer").fill("RUN SLOW please");
      await page.locator("#composer").press("Enter");
      let live: string | undefined;
      for (let i = 0; i < 200 && !live; i++) {
        const r = await workbenchCall(wb, "GET", "/api/harnesses/demo/runs?status=running");
        live = r.json.data.runs[0]?.run_id;
        if (!live) await new Promise((ok) => setTimeout(ok, 100));
      }
      assert.ok(live, "the copilot's run is going");
      assert.equal(
        (await workbenchCall(wb, "POST", `/api/runs/${live}/stop`, { now: true })).status,
        200,
      );
      const artifact = page.locator('.msg-assistant [data-artifact="run"]').last();
      await artifact.waitFor();
      const badge = artifact.locator('[data-outcome="stopped"]');
      assert.equal(await badge.innerText(), "stopped");
      assert.equal(await badge.getAttribute("data-status"), "error", "its status stays error");
      assert.match(await artifact.innerText(), /Run of demo: stopped/);
      await shot("1280-chat-stopped-artifact");
    },
  );

  for (const viewport of VIEWPORTS) {
    const size = `${viewport.width}`;
    await page.setViewportSize(viewport);

    await t.step(
      `${size}: with the chat hidden, the header's Run button can be clicked`,
      async () => {
        await openPage(page, `${wb.url}/h/demo/overview`);
        await page.locator(".chat-toggle").click();
        const show = page.locator(".show-chat");
        await show.waitFor();
        const run = page.getByTestId("run-button");
        assert.equal(overlap((await run.boundingBox())!, (await show.boundingBox())!), false);
        assert.equal(await uncovered(run), true, "nothing covers Run");
        await shot(`${size}-chat-hidden-header`);
        // A real click, without force: Playwright refuses when another element would take it.
        await run.click({ timeout: 5000 });
        await page.waitForURL(/\/h\/demo\/trace/);
        await show.click();
        await page.locator(".island-chat .chat").waitFor();
      },
    );

    await t.step(`${size}: a stopped run reads stopped wherever runs are listed`, async () => {
      await openPage(page, `${wb.url}/h/demo/runs`);
      const row = page.locator(`tr[data-run-id="${slow.run_id}"]`);
      await row.waitFor();
      assert.equal(await row.locator("[data-outcome]").innerText(), "stopped");
      assert.equal(await row.locator(".badge-bad").count(), 0, "not a red error");
      await shot(`${size}-runs-stopped`);

      await openPage(page, `${wb.url}/h/demo/trace`);
      const pick = page.locator(".run-picker li", { hasText: slow.run_id.slice(-8) });
      assert.equal(await pick.locator("[data-outcome]").innerText(), "stopped");
      await shot(`${size}-trace-chooser`);

      await openPage(page, `${wb.url}/h/demo/trace?run=${slow.run_id}`);
      const head = page.locator(".trace-run [data-outcome]");
      await head.waitFor();
      assert.equal(await head.innerText(), "stopped");
      await shot(`${size}-trace-stopped`);

      await openPage(page, `${wb.url}/h/demo/overview`);
      const group = page.locator('tr[data-signature="error:stopped"]');
      assert.equal(await group.locator(".badge").first().innerText(), "stopped");
      await into(page, group);
      await shot(`${size}-overview-stopped`);
    });

    await t.step(
      `${size}: Versions counts the same runs in both places, and says why`,
      async () => {
        await openPage(page, `${wb.url}/h/demo/versions`);
        const compare = page.getByTestId("compare");
        await compare.waitFor();
        const api = (await workbenchCall(wb, "GET", "/api/harnesses/demo/versions")).json.data
          .versions as { version: string; runs: number; eval_runs: number }[];
        const [b, a] = api;
        const c = (await workbenchCall(
          wb,
          "GET",
          `/api/harnesses/demo/versions/compare?a=${a!.version}&b=${b!.version}`,
        )).json.data;
        for (const [entry, m] of [[a!, c.metrics.a], [b!, c.metrics.b]] as const) {
          assert.deepEqual([entry.runs, entry.eval_runs], [m.runs, m.eval_runs]);
        }
        // v1: its live run, 2 eval runs in the folder and 2 on the copy; v2: 3 live (two stopped), 2 eval.
        assert.deepEqual([a!.runs, a!.eval_runs, b!.runs, b!.eval_runs], [1, 4, 3, 2]);
        const timeline = page.getByTestId("version-runs");
        assert.match(await timeline.nth(0).innerText(), /3 live · 2 eval runs/);
        assert.match(await timeline.nth(1).innerText(), /1 live · 4 eval runs/);
        assert.match(await compare.locator('[data-metric="runs"]').innerText(), /1 → 3/);
        assert.match(await compare.locator('[data-metric="eval_runs"]').innerText(), /4 → 2/);
        // The failing check's message, as `framework eval` prints it.
        const why = page.locator('[data-case="greet"] .case-fail .case-check');
        assert.match(await why.innerText(), /contains\s+The answer does not contain "Hi"/);
        await shot(`${size}-versions`);
        await into(page, why);
        await shot(`${size}-versions-eval-grid`);
      },
    );

    await t.step(
      `${size}: Spec keeps the frozen mark on cut paths; the file is not last`,
      async () => {
        await openPage(page, `${wb.url}/h/demo/spec`);
        const rows = page.locator("tr.frozen[data-path]");
        await rows.first().waitFor();
        const report = await rows.evaluateAll((trs) =>
          trs.map((tr) => {
            const cell = tr.querySelector("td")!.getBoundingClientRect();
            const mark = tr.querySelector(".frozen-mark");
            const box = mark?.getBoundingClientRect();
            const head = tr.querySelector(".path-head")!;
            const tail = tr.querySelector(".path-tail")?.getBoundingClientRect();
            return {
              path: tr.getAttribute("data-path"),
              shown: !!box && box.width > 0 && box.right <= cell.right + 1 &&
                (!tail || tail.width > 0),
              cut: head.scrollWidth > head.clientWidth + 1,
            };
          })
        );
        assert.deepEqual(report.filter((r) => !r.shown).map((r) => r.path), []);
        assert.ok(report.some((r) => r.cut), "a long frozen path is cut, its mark still shown");
        const yaml = (await page.locator("pre.yaml").boundingBox())!;
        const fields = (await page.locator("table.fields").boundingBox())!;
        assert.ok(yaml.y < fields.y, "harness.yaml comes before the fields table");
        await shot(`${size}-spec`);
        // Hidden chat at 1280: the workspace is wide, the file and the fields side by side.
        if (viewport.width === 1280) {
          await page.locator(".chat-toggle").click();
          await page.locator(".show-chat").waitFor();
          const side = (await page.locator("pre.yaml").boundingBox())!;
          const form = (await page.locator("form.edit-form").boundingBox())!;
          assert.ok(form.x > side.x + side.width - 1, "side by side");
          assert.ok(Math.abs(form.y - side.y) < 60, "both at the top");
          await shot("1280-spec-wide");
          await page.locator(".show-chat").click();
        }
        const cut = page.locator("tr.frozen[data-path]", { has: page.locator("td code") }).filter({
          hasText: "replies",
        }).first();
        await into(page, cut);
        await shot(`${size}-spec-frozen-paths`);
      },
    );
  }
  await page.setViewportSize(VIEWPORTS[0]!);

  await t.step("Spec: a frozen field is asked about before anything is sent", async () => {
    await openPage(page, `${wb.url}/h/demo/spec`);
    await page.getByTestId("edit-text").click();
    const text = page.locator('textarea[name="text"]');
    const before = await text.inputValue();
    await text.fill(before.replace("  name: v2\n", "  name: v2b\n"));
    const sent: string[] = [];
    page.on("request", (r) => {
      if (r.method() === "PUT") sent.push(r.url());
    });
    await page.getByRole("button", { name: "Save harness.yaml" }).click();
    const confirm = page.locator('[aria-label="Confirm a frozen field"]');
    await confirm.waitFor();
    assert.match(await confirm.innerText(), /This changes model, a frozen safety field/);
    assert.deepEqual(sent, [], "nothing was sent before the person confirmed");
    await shot("1280-spec-confirm-frozen");
    await page.getByTestId("confirm-frozen").click();
    await page.locator(".notice-toast", { hasText: "Saved harness.yaml" }).waitFor();
    assert.equal(sent.length, 1);
    assert.match(await Deno.readTextFile(join(dir, "harness.yaml")), /name: v2b/);
    // The field form asks first too.
    await page.locator("#field-path").fill("model.name");
    await page.locator("#field-value").fill("v2c");
    await page.locator("form.edit-form").getByRole("button", { name: "Save" }).click();
    await page.getByTestId("confirm-frozen").click();
    await page.locator(".notice-toast", { hasText: "Set model.name" }).waitFor();
  });

  await t.step("Use: a run from the page links to its trace", async () => {
    await openPage(page, `${wb.url}/h/demo/use`);
    await page.getByTestId("generate").click();
    const inner = page.frameLocator('[data-testid="use-frame"]');
    await inner.locator("#input").fill("Say something");
    await inner.locator("#run").click();
    await inner.locator("#result .status-success").waitFor();
    const last = page.getByTestId("use-last-run");
    await last.waitFor();
    const runId = await last.getAttribute("data-run-id");
    assert.match(runId!, /^run_/);
    assert.match(await last.innerText(), /success/);
    await shot("1280-use-last-run");
    await page.setViewportSize(VIEWPORTS[1]!);
    await shot("1000-use-last-run");
    await page.setViewportSize(VIEWPORTS[0]!);
    await page.getByTestId("use-trace-link").click();
    await page.waitForURL(new RegExp(`/h/demo/trace\\?.*\\brun=${runId}`));
    await page.locator(".trace-run code", { hasText: runId! }).waitFor();
  });

  await t.step(
    "Improve: draft with an objective, old → new, notices never cover a form",
    async () => {
      await openPage(page, `${wb.url}/h/demo/improve`);
      await page.getByText("No proposals yet").waitFor();
      await shot("1280-improve-empty");
      await page.locator('input[name="objective"]').fill("Make the answers shorter");
      await page.getByRole("button", { name: "Draft a proposal" }).click();
      const proposal = page.locator("article.proposal");
      await proposal.waitFor();
      assert.match(await proposal.innerText(), /Objective\s+Make the answers shorter/);
      const stored = (await workbenchCall(wb, "GET", "/api/harnesses/demo/proposals")).json.data
        .proposals[0];
      assert.equal(stored.objective, "Make the answers shorter", "sent as `objective`");
      const turns = proposal.locator("tr", { hasText: "limits.max_turns" });
      assert.equal(await turns.locator(".change-old").innerText(), "6");
      assert.equal(await turns.locator(".change-new").innerText(), "4");
      const instructions = proposal.locator("tr", { hasText: "instructions" });
      assert.equal(await instructions.locator(".change-old").innerText(), "You answer briefly.");
      // The notice of the draft is showing: it covers none of the tab's fields or buttons.
      const reason = page.locator('input[name="reason"]');
      const noticeCovers = async (width: number) => {
        await page.locator(".notice-toast").first().waitFor();
        const covered = await page.evaluate(() => {
          const toasts = [...document.querySelectorAll(".notice-toast")]
            .map((t) => t.getBoundingClientRect());
          const hits: string[] = [];
          for (const el of document.querySelectorAll("input, textarea, select, button, a")) {
            // The notices' own buttons, and the rail's foot (no form there; its links may wait).
            if (el.closest(".island-rail, .notices")) continue;
            const r = el.getBoundingClientRect();
            if (!r.width || !r.height || r.bottom < 0 || r.top > innerHeight) continue;
            if (
              toasts.some((t) => t.x < r.right && r.x < t.right && t.y < r.bottom && r.y < t.bottom)
            ) hits.push(el.outerHTML.slice(0, 80));
          }
          return hits;
        });
        assert.deepEqual(covered, [], `${width}: nothing under a notice`);
        assert.equal(await uncovered(reason), true, `${width}: the reason field is free`);
        await shot(`${width}-improve-notice`);
      };
      await noticeCovers(1280);
      // Again at 1000 px, with a second proposal's notice.
      await page.setViewportSize(VIEWPORTS[1]!);
      await page.locator('input[name="objective"]').fill("Make it shorter still");
      await page.getByRole("button", { name: "Draft a proposal" }).click();
      await page.locator("article.proposal", { hasText: "Make it shorter still" }).waitFor();
      await noticeCovers(1000);
      // Notices stack instead of replacing each other.
      await reason.fill("Too short already");
      await page.getByRole("button", { name: "Reject" }).click();
      await page.locator(".notice-toast", { hasText: "Proposal rejected" }).waitFor();
      await page.setViewportSize(VIEWPORTS[0]!);
      await shot("1280-improve-rejected-stacked");
    },
  );

  await t.step("nothing failed in the page and nothing left 127.0.0.1", () => {
    assert.deepEqual(tb.errors, []);
    assert.deepEqual(tb.foreign, []);
  });
});
