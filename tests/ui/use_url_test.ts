/**
 * The `url` input contract in Chromium: the generated page asks for a URL and sends it to the run as
 * literal input — the URL's text, never its content and never a file, even when it names a file of
 * the harness or a `file:` URL — through the Use tab's bridge and through a deployment's `GET /`.
 * Screenshots go to tests/.artifacts/use-url/.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { launchBrowser, openPage } from "../helpers/browser.ts";
import { memberToken, startControlPlane } from "../helpers/control_plane.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir } from "../helpers/temp.ts";
import { startWorkbenchProcess, workbenchCall } from "../helpers/workbench.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const URLS = [
  "https://example.com/report?id=7#summary",
  // A file: URL: still only its text, never the file.
  "file:///etc/hostname",
];

Deno.test("the url contract: the page sends the URL as literal input", async (t) => {
  await using home = await tempDir("fw-url-home-");
  await using cwd = await tempDir("fw-url-cwd-");
  const dir = await writeHarness(join(cwd.path, "harnesses"), "linky", {
    name: "Linky",
    description: "Summarises a page.",
    model: scripted([{ text: "Read the link." }, { text: "Again." }, { text: "Hosted." }]),
    interface: { input: "url" },
  });
  await using wb = await startWorkbenchProcess({ home: home.path, cwd: cwd.path });
  await using tb = await launchBrowser();
  const { page } = tb;
  const inner = page.frameLocator('[data-testid="use-frame"]');

  const runInputs = async (): Promise<Json[]> => {
    const runs = (await workbenchCall(wb, "GET", "/api/harnesses/linky/runs")).json.data.runs;
    const out = [];
    for (const r of runs) {
      const view = (await workbenchCall(wb, "GET", `/api/runs/${r.run_id}`)).json.data;
      out.push(view.events.find((e: Json) => e.type === "run_started").payload);
    }
    return out;
  };

  await t.step("the Use tab's page asks for a URL", async () => {
    await openPage(page, `${wb.url}/h/linky/use`);
    await page.getByTestId("generate").click();
    await inner.locator("h1", { hasText: "Linky" }).waitFor();
    assert.equal(await inner.locator("#input").getAttribute("type"), "url");
    await tb.screenshot("use-url", "page-1280");
  });

  await t.step("each URL reaches the run as its literal text, no file attached", async () => {
    for (const [i, url] of URLS.entries()) {
      await inner.locator("#input").fill(url);
      await inner.locator("#run").click();
      await inner.locator("#result .status-success").nth(0).waitFor();
      await page.waitForFunction(
        async ([base, n]) => {
          const r = await fetch(`${base}/api/harnesses/linky/runs`);
          return (await r.json()).data.runs.length === n;
        },
        [wb.url, i + 1] as const,
      );
    }
    const started = await runInputs();
    assert.deepEqual(started.map((p) => p.input).sort(), [...URLS].sort());
    assert.ok(started.every((p) => p.input_file === undefined), JSON.stringify(started));
    assert.deepEqual(tb.foreign, [], "the page fetched nothing from the URLs");
  });

  await t.step("hosted by a deployment, the page sends the URL literally to /run", async () => {
    const { token } = await memberToken(dir, home.path, "member", ["run"]);
    await using plane = await startControlPlane(dir, {
      home: home.path,
      env: { FRAMEWORK_AUTHORIZED_KEYS: "" },
    });
    await page.goto(`${plane.url}/`);
    await page.locator("h1", { hasText: "Linky" }).waitFor();
    await page.locator("#token").fill(token);
    await page.locator("#input").fill(URLS[0]!);
    await page.locator("#run").click();
    await page.locator("#result .status-success").waitFor();
    await page.setViewportSize({ width: 1000, height: 800 });
    await tb.screenshot("use-url", "hosted-1000");
    const started = await runInputs();
    assert.equal(started.length, 3);
    assert.equal(started.filter((p) => p.input === URLS[0]).length, 2);
  });

  await t.step("nothing failed in the page and nothing left 127.0.0.1", () => {
    assert.deepEqual(tb.errors, []);
    assert.deepEqual(tb.foreign, []);
  });
});
