/**
 * "Add to eval set" in Chromium at 1280×800 and 1000 px: from a run's Trace (the form comes drafted
 * from the run: input, status, a check of the output; the existing set is offered) into a set whose
 * comments stay, and from a Runs row into a new set, where a clashing id shows the API's 409 in the
 * form and a new id goes through. The routes' refusals are checked over HTTP too. Screenshots go to
 * tests/.artifacts/eval-case/.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { parseEvalSetText } from "../../lib/harness_spec/eval_set.ts";
import { launchBrowser, openPage } from "../helpers/browser.ts";
import { writeHarness } from "../helpers/harness.ts";
import { tempDir } from "../helpers/temp.ts";
import { startWorkbenchProcess, workbenchCall } from "../helpers/workbench.ts";

const SMOKE = `# Cases every version must pass.
cases:
  - id: greet # the first thing people type
    input: hello
    expect: [{ builtin: contains, text: Hi }]
`;

Deno.test("add a run to an eval set from Trace and from Runs", async (t) => {
  await using home = await tempDir("fw-ec-home-");
  await using cwd = await tempDir("fw-ec-cwd-");
  const dir = await writeHarness(join(cwd.path, "harnesses"), "shop", {
    name: "Shop",
    model: {
      provider: "scripted",
      scenarios: [
        { match: "^hello", replies: [{ text: "Hi!" }] },
        { match: ".", replies: [{ text: "Your order ships on Monday.\nAnything else?" }] },
      ],
    },
  }, { "evals/smoke.yaml": SMOKE });
  const smoke = join(dir, "evals/smoke.yaml");
  await using wb = await startWorkbenchProcess({ home: home.path, cwd: cwd.path });
  const ran = await workbenchCall(wb, "POST", "/api/harnesses/shop/runs", {
    input: "Where is my order?",
  });
  assert.equal(ran.json.data.status, "success", JSON.stringify(ran.json));
  const runId: string = ran.json.data.run_id;

  await t.step("the routes: a draft, and refusals that write nothing", async () => {
    const draft = await workbenchCall(wb, "GET", `/api/runs/${runId}/eval-case`);
    assert.equal(draft.status, 200);
    assert.deepEqual(draft.json.data.sets, ["smoke"]);
    assert.equal(draft.json.data.case.input, "Where is my order?");
    const add = (body: unknown) =>
      workbenchCall(wb, "POST", "/api/harnesses/shop/evals/cases", body);
    assert.equal((await add({ set: "smoke", case: { id: "greet", input: "x" } })).status, 409);
    assert.equal((await add({ set: "../x", case: { id: "a", input: "x" } })).status, 400);
    assert.equal((await add({ set: "smoke", case: { id: "a", input_file: ".env" } })).status, 400);
    assert.equal((await add({ set: "smoke" })).status, 400);
    assert.equal((await add({ set: "smoke", case: {}, path: "/etc" })).status, 400);
    const unknown = await workbenchCall(
      wb,
      "GET",
      "/api/runs/run_01ZZZZZZZZZZZZZZZZZZZZZZZZ/eval-case",
    );
    assert.equal(unknown.status, 404);
    assert.equal(await Deno.readTextFile(smoke), SMOKE);
  });

  await using tb = await launchBrowser();
  const { page } = tb;
  const shot = (name: string) => tb.screenshot("eval-case", name);

  await t.step("Trace: the drafted form adds the run to the existing set", async () => {
    await openPage(page, `${wb.url}/h/shop/trace?run=${runId}`);
    await page.getByTestId("add-to-eval").click();
    const form = page.getByTestId("eval-case-form");
    await page.waitForFunction(() =>
      (document.querySelector('input[name="eval-case-id"]') as HTMLInputElement | null)?.value ===
        "where-is-my-order"
    );
    assert.equal(await form.locator('input[name="eval-set"]').inputValue(), "smoke");
    assert.equal(
      await form.locator('textarea[name="eval-input"]').inputValue(),
      "Where is my order?",
    );
    assert.equal(await form.locator('select[name="eval-status"]').inputValue(), "success");
    const check = form.getByTestId("eval-check");
    assert.equal(await check.count(), 1);
    assert.equal(await check.locator("select").inputValue(), "contains");
    assert.equal(await check.locator("input").inputValue(), "Your order ships on Monday.");
    await shot("trace-form-1280");
    await page.setViewportSize({ width: 1000, height: 800 });
    await shot("trace-form-1000");
    await page.setViewportSize({ width: 1280, height: 800 });
    await form.getByRole("button", { name: /Add to smoke/ }).click();
    await page.locator(".notice-toast", { hasText: "Added case where-is-my-order" }).waitFor();
    await form.waitFor({ state: "detached" });
    const text = await Deno.readTextFile(smoke);
    assert.ok(text.startsWith(SMOKE), text);
    assert.deepEqual(parseEvalSetText(text).set?.cases.at(-1), {
      id: "where-is-my-order",
      input: "Where is my order?",
      expect: [{ builtin: "contains", text: "Your order ships on Monday." }],
    });
  });

  await t.step("Runs: a clashing id shows the 409 in the form; a new set is made", async () => {
    await openPage(page, `${wb.url}/h/shop/runs`);
    await page.locator(`tr[data-run-id="${runId}"] [data-testid="add-to-eval"]`).click();
    const form = page.getByTestId("eval-case-form");
    const id = form.locator('input[name="eval-case-id"]');
    // A second draft of the same run gets an id no set has yet.
    await page.waitForFunction(() =>
      (document.querySelector('input[name="eval-case-id"]') as HTMLInputElement | null)?.value ===
        "where-is-my-order-2"
    );
    await form.locator('input[name="eval-set"]').fill("smoke");
    await id.fill("greet");
    await form.locator('select[name="eval-status"]').selectOption("verify_failed");
    await form.getByRole("button", { name: "Add a check" }).click();
    const second = form.getByTestId("eval-check").nth(1);
    await second.locator("select").selectOption("max_length");
    await second.locator("input").fill("200");
    await form.getByRole("button", { name: /Add to smoke/ }).click();
    const error = form.locator(".field-error");
    await error.waitFor();
    assert.match(await error.innerText(), /already has a case "greet"/);
    tb.takeErrors(/HTTP 409 POST .*\/evals\/cases|status of 409/);
    await shot("runs-clash-1280");
    await form.locator('input[name="eval-set"]').fill("regressions");
    assert.match(await form.innerText(), /new/);
    await id.fill("order-status");
    await page.setViewportSize({ width: 1000, height: 800 });
    await shot("runs-new-set-1000");
    await page.setViewportSize({ width: 1280, height: 800 });
    await form.getByRole("button", { name: /Add to regressions/ }).click();
    await page.locator(".notice-toast", { hasText: "(a new set)" }).waitFor();
    const made = parseEvalSetText(
      await Deno.readTextFile(join(dir, "evals/regressions.yaml")),
    ).set;
    assert.deepEqual(made?.cases, [{
      id: "order-status",
      input: "Where is my order?",
      status: "verify_failed",
      expect: [
        { builtin: "contains", text: "Your order ships on Monday." },
        { builtin: "max_length", max: 200 },
      ],
    }]);
  });

  await t.step("nothing failed in the page and nothing left 127.0.0.1", () => {
    assert.deepEqual(tb.errors, []);
    assert.deepEqual(tb.foreign, []);
  });
});
