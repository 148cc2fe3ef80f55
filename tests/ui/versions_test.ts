/**
 * Versions in Chromium: three versions of a harness evaluated on one set; the Versions tab compares
 * the current one with the one before (the YAML diff, the deltas, the broken case, the signature that
 * appeared), then the first with the current, and restores the first. Screenshots at 1280 and 1000 px
 * go to tests/.artifacts/versions/.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { setField } from "../../lib/construct/set_field.ts";
import { runEval } from "../../lib/evals/run_eval.ts";
import { openHive } from "../../lib/hive/open.ts";
import { listSpecVersions } from "../../lib/hive/spec_versions.ts";
import { createRunService, startRun } from "../../lib/runs/service.ts";
import { launchBrowser, openPage } from "../helpers/browser.ts";
import { writeHarness } from "../helpers/harness.ts";
import { tempDir, tempHome } from "../helpers/temp.ts";
import { startWorkbenchProcess } from "../helpers/workbench.ts";

const SET = `cases:
  - id: greet
    input: hello
    expect: [{ builtin: contains, text: Hi }]
  - id: sum
    input: add 2 and 3
    expect: [{ builtin: contains, text: "5" }]
`;

function model(name: string, hello: Record<string, unknown>, add: Record<string, unknown>) {
  return {
    provider: "scripted",
    name,
    max_retries: 0,
    scenarios: [{ match: "^hello", replies: [hello] }, { match: "^add", replies: [add] }],
  };
}

Deno.test("versions in the workbench: compare, deltas, signatures, restore", async (t) => {
  await using home = await tempHome();
  await using cwd = await tempDir("fw-vr-cwd-");
  const dir = await writeHarness(join(cwd.path, "harnesses"), "versioned", {
    name: "Versioned",
    model: model("v0", { text: "Hi!" }, { text: "5" }),
  }, { "evals/smoke.yaml": SET });
  const db = openHive();
  const runs = createRunService();
  const versions: string[] = [];
  for (
    const m of [
      model("v1", { text: "Hi!" }, { error: { message: "adder down", status: 500 } }),
      model("v2", { text: "Hi!" }, { text: "5" }),
      model("v3", { error: { message: "bad greeting", status: 400 } }, { text: "5" }),
    ]
  ) {
    versions.push(
      (await setField(dir, "model", m, { actor: "cli", policy: "local" })).spec_version,
    );
    await runEval(db, runs, dir, { set: "smoke" });
    // A live run too, so each version has live figures.
    await (await startRun(dir, { input: "hello" })).result;
  }
  const [v1, , v3] = versions as [string, string, string];
  await using wb = await startWorkbenchProcess({ home: home.path, cwd: cwd.path });
  await using tb = await launchBrowser();
  const { page } = tb;
  const shot = (name: string) => tb.screenshot("versions", name);

  await t.step("the tab compares the current version with the one before", async () => {
    await openPage(page, `${wb.url}/h/versioned/versions`);
    const compare = page.getByTestId("compare");
    await compare.waitFor();
    assert.match(await compare.locator(".diff").innerText(), /\+\s+name: v3/);
    await page.locator('[data-case="greet"][data-change="broken"]').waitFor();
    await page.locator('[data-case="sum"][data-change="still_passing"]').waitFor();
    assert.equal(await page.locator(".sig-appeared").count(), 1);
    const success = page.locator('[data-metric="success_rate"] .metric-delta');
    assert.equal(await success.getAttribute("data-tone"), "worse");
    assert.match(await success.innerText(), /−100%/);
    await shot("compare-1280");
  });

  await t.step("choosing the first version as A shows sum fixed and greet broken", async () => {
    const seq = listSpecVersions(db, { id: "versioned", dir }).find((v) => v.version === v1)!.seq;
    await page.locator(`[data-pick="a-${seq}"]`).click();
    await page.waitForURL(new RegExp(`a=${v1}`));
    await page.locator('[data-case="sum"][data-change="fixed"]').waitFor();
    await page.locator('[data-case="greet"][data-change="broken"]').waitFor();
    assert.equal(await page.locator(".sig-disappeared").count(), 1);
    assert.equal(await page.locator(".sig-appeared").count(), 1);
    await page.setViewportSize({ width: 1000, height: 800 });
    await shot("compare-1000");
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  await t.step(
    "Restore writes the first version back, after confirming the frozen field",
    async () => {
      const v1Yaml = listSpecVersions(db, { id: "versioned", dir }).find((v) => v.version === v1)!
        .yaml;
      await page.getByTestId("restore-a").click();
      // The versions differ in `model`, a frozen field: the page asks before it writes it.
      await page.getByRole("button", { name: "Restore anyway" }).click();
      await page.getByText(`Restored ${v1.slice(0, 10)}`).waitFor();
      assert.deepEqual(tb.takeErrors(/403/), [], "asked before anything was sent");
      assert.equal(await Deno.readTextFile(join(dir, "harness.yaml")), v1Yaml);
      const newest = listSpecVersions(db, { id: "versioned", dir })[0]!;
      assert.deepEqual([newest.version, newest.source], [v1, "restore"]);
      assert.notEqual(newest.version, v3);
    },
  );

  await t.step("nothing failed in the page and nothing left 127.0.0.1", () => {
    assert.deepEqual(tb.errors, []);
    assert.deepEqual(tb.foreign, []);
  });
});
