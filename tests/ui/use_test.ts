/**
 * The Use tab and the hosted page in Chromium: the page of a text harness and of a file harness is
 * generated and used in the sandboxed preview (the file is uploaded into `workspace/uploads/` and the
 * run's `input_file` is that path); a script inside the preview can neither read the workbench's
 * cookie nor call `/api`, and the bridge refuses another harness, a path into `.framework`/`.env`
 * and any field but input or file. Then a control plane's `GET /` runs the harness through `/run`
 * with a pasted token. Screenshots go to tests/.artifacts/use/.
 *
 * @module
 */

import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { join } from "node:path";
import type { Frame } from "playwright-core";
import { launchBrowser, openPage } from "../helpers/browser.ts";
import { memberToken, startControlPlane } from "../helpers/control_plane.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir } from "../helpers/temp.ts";
import { startWorkbenchProcess, workbenchCall } from "../helpers/workbench.ts";

Deno.test("Use tab: generate, preview sandboxed, run text and file; the bridge refuses the rest", async (t) => {
  await using home = await tempDir("fw-use-home-");
  await using cwd = await tempDir("fw-use-cwd-");
  const harnesses = join(cwd.path, "harnesses");
  await writeHarness(harnesses, "texty", {
    name: "Texty",
    description: "Answers in one line.",
    model: scripted([{ text: "**Hello** from texty." }, { text: "Again." }]),
  });
  const fileDir = await writeHarness(harnesses, "filey", {
    name: "Filey",
    model: scripted([{ text: "I read your file." }]),
    interface: { input: "file", accept: ".txt" },
  });
  await using wb = await startWorkbenchProcess({ home: home.path, cwd: cwd.path });
  await using tb = await launchBrowser();
  const { page } = tb;
  const shot = (name: string) => tb.screenshot("use", name);
  const preview = (): Frame => {
    const f = page.frames().find((x) => x.url().includes("/interface"));
    assert.ok(f, "the preview frame");
    return f;
  };

  await t.step("generate the text page; the frame is sandboxed without same-origin", async () => {
    await openPage(page, `${wb.url}/h/texty/use`);
    await page.getByText("No page yet").waitFor();
    await page.getByTestId("generate").click();
    const frame = page.getByTestId("use-frame");
    await frame.waitFor();
    assert.equal(await frame.getAttribute("sandbox"), "allow-scripts");
    const inner = page.frameLocator('[data-testid="use-frame"]');
    await inner.locator("h1", { hasText: "Texty" }).waitFor();
    assert.equal(await inner.locator("#token-row").isHidden(), true, "no token in the preview");
  });

  await t.step("a text run from the page shows the result, rendered safely", async () => {
    const inner = page.frameLocator('[data-testid="use-frame"]');
    await inner.locator("#input").fill("Say hello");
    await inner.locator("#run").click();
    await inner.locator("#result .status-success").waitFor();
    assert.equal(await inner.locator("#result strong").innerText(), "Hello");
    await shot("text-1280");
    const runs = (await workbenchCall(wb, "GET", "/api/harnesses/texty/runs")).json.data.runs;
    assert.equal(runs.length, 1, "the run is in Runs like any other");
  });

  await t.step(
    "a script in the preview cannot read the cookie, call /api, or misuse the bridge",
    async () => {
      const report = await preview().evaluate(async () => {
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
        let cookie: string;
        try {
          cookie = `read: ${document.cookie}`;
        } catch (e) {
          cookie = `blocked: ${(e as Error).name}`;
        }
        let api: string;
        try {
          const r = await fetch("/api/harnesses");
          api = `status ${r.status}`;
        } catch (e) {
          api = `blocked: ${(e as Error).name}`;
        }
        let parentDoc: string;
        try {
          parentDoc = `read: ${parent.document.title}`;
        } catch (e) {
          parentDoc = `blocked: ${(e as Error).name}`;
        }
        const bytes = new Uint8Array([1, 2, 3]);
        return {
          cookie,
          api,
          parentDoc,
          origin: self.origin,
          other: await ask({ type: "framework:run", harness: "filey", input: "x" }),
          framework: await ask({
            type: "framework:run",
            harness: "texty",
            file: { name: "../.framework/authorized_keys.json", bytes },
          }),
          env: await ask({
            type: "framework:run",
            harness: "texty",
            file: { name: ".env", bytes },
          }),
          direct: await ask({ type: "framework:run", harness: "texty", input_file: ".env" }),
          unknown: await ask({ type: "framework:admin", harness: "texty" }),
        };
      });
      assert.match(report.cookie, /^blocked: SecurityError/);
      assert.match(report.api, /^blocked: TypeError/);
      assert.match(report.parentDoc, /^blocked: SecurityError/);
      assert.equal(report.origin, "null", "an opaque origin");
      const refused = (r: unknown, pattern: RegExp) => {
        const m = r as { type: string; error: string };
        assert.equal(m.type, "framework:error", JSON.stringify(r));
        assert.match(m.error, pattern);
      };
      refused(report.other, /may only run texty/);
      refused(report.framework, /a plain name, not a path/);
      refused(report.env, /a plain name, not a path/);
      refused(report.direct, /Unknown field "input_file"/);
      refused(report.unknown, /Only framework:run/);
      // The blocked fetch is reported by the page's CSP as a console error: expected here.
      tb.takeErrors(/Content Security Policy|connect-src|Failed to fetch|ERR_/);
      const runs = (await workbenchCall(wb, "GET", "/api/harnesses/texty/runs")).json.data.runs;
      assert.equal(runs.length, 1, "no refused message started a run");
    },
  );

  await t.step(
    "the file page uploads into workspace/uploads and runs with that input_file",
    async () => {
      await openPage(page, `${wb.url}/h/filey/use`);
      await page.getByText("No page yet").waitFor();
      assert.equal(
        await page.locator('select[aria-label="What the page asks for"]').inputValue(),
        "file",
      );
      await page.getByTestId("generate").click();
      const inner = page.frameLocator('[data-testid="use-frame"]');
      await inner.locator('#input[type="file"]').setInputFiles({
        name: "my notes.txt",
        mimeType: "text/plain",
        buffer: Buffer.from("Refunds take 30 days.\n"),
      });
      await inner.locator("#run").click();
      await inner.locator("#result .status-success").waitFor();
      assert.equal(
        await Deno.readTextFile(join(fileDir, "workspace/uploads/my-notes.txt")),
        "Refunds take 30 days.\n",
      );
      const runs = (await workbenchCall(wb, "GET", "/api/harnesses/filey/runs")).json.data.runs;
      const view = (await workbenchCall(wb, "GET", `/api/runs/${runs[0].run_id}`)).json.data;
      assert.equal(view.events[0].payload.input_file, "workspace/uploads/my-notes.txt");
      await shot("file-1280");
      await page.setViewportSize({ width: 1000, height: 800 });
      await shot("file-1000");
      await page.setViewportSize({ width: 1280, height: 800 });
    },
  );

  await t.step("nothing else failed in the page and nothing left 127.0.0.1", () => {
    assert.deepEqual(tb.errors, []);
    assert.deepEqual(tb.foreign, []);
  });
});

Deno.test("hosted page: a control plane's GET / runs the harness through /run with a pasted token", async () => {
  await using home = await tempDir("fw-host-home-");
  await using root = await tempDir("fw-host-");
  const dir = await writeHarness(root.path, "hosted", {
    name: "Hosted",
    model: scripted([{ text: "Served: *fine*." }]),
  });
  const { token } = await memberToken(dir, home.path, "visitor", ["run"]);
  await using plane = await startControlPlane(dir, {
    home: home.path,
    env: { FRAMEWORK_AUTHORIZED_KEYS: "" },
  });
  await using tb = await launchBrowser();
  const { page } = tb;
  await page.goto(`${plane.url}/`);
  await page.locator("h1", { hasText: "Hosted" }).waitFor();
  await page.locator("#input").fill("Are you there?");
  await page.locator("#run").click();
  await page.locator("#result .error", { hasText: "Paste a token" }).waitFor();
  await page.locator("#token").fill(token);
  await page.locator("#run").click();
  await page.locator("#result .status-success").waitFor();
  assert.equal(await page.locator("#result em").innerText(), "fine");
  assert.equal(
    await page.evaluate(() => sessionStorage.getItem("framework-token")),
    token,
    "kept in this tab's sessionStorage",
  );
  await tb.screenshot("use", "hosted-1280");
  assert.deepEqual(tb.errors, []);
  assert.deepEqual(tb.foreign, []);
});
