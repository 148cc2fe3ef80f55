/**
 * What a new user hits in the workbench's first hour, in Chromium at 1280×800 and 1000 px: hiding the
 * chat, the Overview's small costs, the Runs table's width, folders added while it runs, bad
 * addresses, the Improve tab's command, an unknown page, and the chat's stored replies, quotes,
 * suggestions and stopped turns. Screenshots go to tests/.artifacts/first-hour/.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { stringify } from "yaml";
import { launchBrowser, openPage } from "../helpers/browser.ts";
import { runCli } from "../helpers/cli.ts";
import { jsonOk } from "../helpers/cli_assert.ts";
import { tempDir } from "../helpers/temp.ts";
import { startWorkbenchProcess, workbenchCall } from "../helpers/workbench.ts";

const SCENARIOS = [
  {
    match: "^TWO TURNS",
    replies: [
      {
        text: "First I look at the harnesses.",
        tool_calls: [{ name: "list_harnesses", arguments: {} }],
      },
      { text: "Then I answer: there is **hello**." },
    ],
  },
  // Anchored at the end: the person's message alone is matched (the selection goes after it).
  {
    match: "^QUOTE something$",
    replies: [{ text: "> a quoted line\n> and another\n\nAfter the quote." }],
  },
  {
    match: "^SLOWLY",
    replies: [
      { text: "Partial thoughts.", tool_calls: [{ name: "list_harnesses", arguments: {} }] },
      { text: "Too late.", delay_ms: 20_000 },
    ],
  },
  { match: ".", replies: [{ text: "Hello from the script." }] },
];

const VIEWPORTS = [{ width: 1280, height: 800 }, { width: 1000, height: 800 }];

Deno.test("first hour in the workbench: layout, addresses, folders and chat", async (t) => {
  await using home = await tempDir("fw-fh-home-");
  await using cwd = await tempDir("fw-fh-cwd-");
  const cli = (args: string[]) => runCli(args, { home: home.path, cwd: cwd.path });
  jsonOk(await cli(["init", "harnesses/hello", "--json"]));
  const run = jsonOk(
    await cli(["run", "harnesses/hello", "--input", "Hi", "--approve", "--json"]),
  );
  assert.equal(run.cost_usd, 0.000087);
  // A run with a long input: the Runs table must still fit.
  jsonOk(
    await cli([
      "run",
      "harnesses/hello",
      "--input",
      "A long question ".repeat(20),
      "--json",
    ]),
  );
  const script = join(home.path, "copilot.yaml");
  await Deno.writeTextFile(script, stringify({ scenarios: SCENARIOS }));
  await using wb = await startWorkbenchProcess({
    home: home.path,
    cwd: cwd.path,
    env: { FRAMEWORK_COPILOT_MODEL: `scripted:${script}` },
  });
  await using tb = await launchBrowser();
  const { page } = tb;
  const shot = (name: string) => tb.screenshot("first-hour", name);

  for (const viewport of VIEWPORTS) {
    const size = `${viewport.width}`;
    await page.setViewportSize(viewport);

    await t.step(
      `${size}: hiding the chat gives the workspace its room, also after a reload`,
      async () => {
        await openPage(page, `${wb.url}/h/hello/overview`);
        const workspace = page.locator(".island-workspace");
        // Wide: the chat is a column beside the workspace; narrow: a band under it.
        const wide = viewport.width > 1100;
        const room = async () => {
          const box = (await workspace.boundingBox())!;
          return wide ? box.width : box.height;
        };
        const before = await room();
        await page.locator(".chat-toggle").click();
        await page.locator(".show-chat").waitFor();
        const hidden = await room();
        assert.ok(hidden > before + 200, `the workspace grows: ${before} → ${hidden}`);
        const full = wide ? viewport.width - 260 : viewport.height - 10;
        assert.ok(hidden > full, `the workspace fills the window: ${hidden}`);
        await shot(`${size}-chat-hidden`);
        await page.reload();
        await page.waitForSelector("html[data-hydrated]");
        await page.locator(".show-chat").waitFor();
        assert.ok((await room()) > full, "still visible");
        await page.locator(".show-chat").click();
        await page.locator(".island-chat .chat").waitFor();
        assert.ok((await page.locator(".island-chat").boundingBox())!.height > 200);
        // "/" also brings a hidden chat back, with the composer focused.
        await page.locator(".chat-toggle").click();
        await page.locator("body").press("/");
        await page.waitForFunction(() => document.activeElement?.id === "composer");
      },
    );

    await t.step(`${size}: the Overview shows a small cost whole`, async () => {
      await openPage(page, `${wb.url}/h/hello/overview`);
      const card = page.locator(".metric", { hasText: "cost" }).first();
      await card.waitFor();
      assert.match(await card.innerText(), /\$0\.00017\b/);
      const clipped = await card.evaluate((el) =>
        [...el.querySelectorAll("*")].some((c) => c.scrollWidth > c.clientWidth + 1)
      );
      assert.equal(clipped, false, "no part of the cost card is cut off");
      await shot(`${size}-overview`);
    });

    await t.step(`${size}: the Runs table fits beside the open chat`, async () => {
      await openPage(page, `${wb.url}/h/hello/runs`);
      const table = page.locator(".island-workspace table").first();
      await table.waitFor();
      const box = (await table.boundingBox())!;
      const ws = (await page.locator(".island-workspace").boundingBox())!;
      assert.ok(
        box.x + box.width <= ws.x + ws.width + 1,
        `table ${box.x + box.width} > ${ws.x + ws.width}`,
      );
      const lastCell = page.locator(".island-workspace table tbody tr").first().locator("td")
        .last();
      const cell = (await lastCell.boundingBox())!;
      assert.ok(cell.x + cell.width <= viewport.width, "the last column is on screen");
      // Only the input is cut short; every other column shows its value whole.
      const cut = await table.evaluate((el) =>
        [...el.querySelectorAll("th, td")]
          .filter((c) =>
            !(c as HTMLElement).classList.contains("excerpt") && c.textContent !== "Input"
          )
          .filter((c) => c.scrollWidth > c.clientWidth + 1)
          .map((c) => c.textContent)
      );
      assert.deepEqual(cut, [], "no column but the input is cut off");
      await shot(`${size}-runs`);
    });
  }
  await page.setViewportSize(VIEWPORTS[0]!);

  await t.step("Spec: Edit on a low row brings the form into view", async () => {
    await page.setViewportSize({ width: 1280, height: 600 });
    await openPage(page, `${wb.url}/h/hello/spec`);
    const last = page.locator("tr[data-path]").last();
    await last.scrollIntoViewIfNeeded();
    const path = await last.getAttribute("data-path");
    await last.getByRole("button", { name: "Edit" }).click();
    await page.waitForFunction(() => document.activeElement?.id === "field-value");
    assert.equal(await page.locator("#field-path").inputValue(), path);
    await page.waitForTimeout(400); // the smooth scroll
    const box = (await page.locator("form.edit-form").boundingBox())!;
    assert.ok(box.y >= -1 && box.y < 600, `the form is in view (y ${box.y})`);
    await page.setViewportSize(VIEWPORTS[0]!);
  });

  await t.step("the new-harness form: a valid pattern, and a name from the id", async () => {
    await openPage(page, wb.url);
    await page.locator('.island-rail [title="New harness"]').click();
    const id = page.locator('.new-harness input[name="id"]');
    await id.fill("Not A Slug");
    assert.equal(
      await id.evaluate((el) => (el as HTMLInputElement).validity.patternMismatch),
      true,
    );
    await id.fill("fresh-one");
    assert.equal(await id.evaluate((el) => (el as HTMLInputElement).validity.valid), true);
    await page.locator(".new-harness").getByRole("button", { name: /Create/ }).click();
    await page.locator('.tree-item[data-harness="fresh-one"]').waitFor();
    const detail = await workbenchCall(wb, "GET", "/api/harnesses/fresh-one");
    assert.equal(detail.json.data.spec.name, "Fresh one", "named after its id, not 'Blank'");
    const refused = await workbenchCall(wb, "POST", "/api/harnesses", { id: "Bad Id" });
    assert.equal(refused.status, 400);
    assert.doesNotMatch(refused.json.error.message, /--id/, "no CLI flag in a web form's error");
  });

  await t.step("Spec: an invalid harness is repaired from its problems and as text", async () => {
    const broken = join(cwd.path, "harnesses", "broken");
    await Deno.mkdir(broken);
    await Deno.writeTextFile(
      join(broken, "harness.yaml"),
      "# kept comment\nid: broken\nmodel:\n  provider: scripted\n  replies:\n    - text: hi\n" +
        'limits:\n  max_turnz: 3\n  max_turns: "x"\n',
    );
    await workbenchCall(wb, "POST", "/api/harnesses/rescan");
    await openPage(page, `${wb.url}/h/broken/spec`);
    const problems = page.locator(".spec-problems");
    await problems.waitFor();
    assert.match(await problems.innerText(), /2 problems to fix/);
    await shot("spec-problems");
    await problems.getByRole("button", { name: /Remove limits\.max_turnz/ }).click();
    await page.locator('[data-issue="limits.max_turnz"]').waitFor({ state: "detached" });
    await problems.getByRole("button", { name: /Fix limits\.max_turns/ }).click();
    assert.equal(await page.locator("#field-path").inputValue(), "limits.max_turns");
    await page.locator("#field-value").fill("5");
    await page.locator("form.edit-form").getByRole("button", { name: "Save" }).click();
    await problems.waitFor({ state: "detached" });
    await page.locator('[data-testid="edit-text"]').click();
    const text = page.locator("textarea.yaml-input");
    await text.fill((await text.inputValue()).replace("# kept comment", "# kept comment\n# added"));
    await page.getByRole("button", { name: "Save harness.yaml" }).click();
    await page.locator(".yaml", { hasText: "# added" }).waitFor();
    const onDisk = await Deno.readTextFile(join(broken, "harness.yaml"));
    assert.match(onDisk, /# kept comment\n# added/);
    assert.match(onDisk, /max_turns: 5/);
    assert.doesNotMatch(onDisk, /max_turnz/);
  });

  await t.step("Improve's empty state names a real command", async () => {
    await openPage(page, `${wb.url}/h/hello/improve`);
    const empty = page.locator(".empty", { hasText: "No proposals yet" });
    await empty.waitFor();
    assert.match(await empty.innerText(), /framework evolve propose /);
    const help = await runCli(["evolve", "propose", "--help"], { home: home.path });
    assert.equal(help.code, 0);
  });

  await t.step("a harness folder added on disk appears with the rail's refresh", async () => {
    await openPage(page, wb.url);
    const later = join(cwd.path, "harnesses", "later");
    await Deno.mkdir(later);
    await Deno.writeTextFile(
      join(later, "harness.yaml"),
      stringify({ id: "later", model: { provider: "scripted", replies: [{ text: "hi" }] } }),
    );
    await page.locator('[data-testid="rescan"]').click();
    await page.locator('.tree-item[data-harness="later"]').waitFor();
    await Deno.remove(later, { recursive: true });
    await page.locator('[data-testid="rescan"]').click();
    await page.locator('.tree-item[data-harness="later"]').waitFor({ state: "detached" });
  });

  await t.step("a bad address never becomes the conversation's selection", async () => {
    await openPage(page, `${wb.url}/h/hello/overview`);
    await page.locator("#composer").fill("hello there");
    await page.locator("#composer").press("Enter");
    await page.locator(".msg-assistant[data-message-id]").first().waitFor();
    const conversation = new URL(page.url()).searchParams.get("c")!;
    const selection = async () =>
      (await workbenchCall(wb, "GET", `/api/conversations/${conversation}`)).json.data
        .conversation;
    assert.equal((await selection()).selected_harness_id, "hello");
    const patches: string[] = [];
    page.on("request", (r) => {
      if (r.method() === "PATCH") patches.push(r.postData() ?? "");
    });
    await openPage(page, `${wb.url}/h/hello/trace?run=run_bogus&c=${conversation}`);
    await page.locator(".island-workspace", { hasText: /run_bogus|Unknown run/ }).waitFor();
    await page.waitForTimeout(300);
    assert.notEqual((await selection()).selected_run_id, "run_bogus");
    await openPage(page, `${wb.url}/h/does-not-exist?c=${conversation}`);
    await page.locator(".island-workspace", { hasText: /does-not-exist|No harness/ }).waitFor();
    await page.waitForTimeout(300);
    assert.equal((await selection()).selected_harness_id, "hello");
    assert.deepEqual(
      patches.filter((body) => /does-not-exist|run_bogus/.test(body)),
      [],
      "the page never asks to store an unknown harness or run",
    );
    // The API refuses them too, whatever a page sends.
    const bogus = await workbenchCall(wb, "PATCH", `/api/conversations/${conversation}`, {
      selected_run_id: "run_bogus",
    });
    assert.equal(bogus.status, 404);
    tb.takeErrors(/run_bogus|does-not-exist|status of 404/);
  });

  await t.step("an unknown page is styled and leads back", async () => {
    const res = await page.goto(`${wb.url}/no/such/page`);
    assert.equal(res!.status(), 404);
    await page.locator(".plain-page").waitFor();
    const font = await page.locator("body").evaluate((b) => getComputedStyle(b).fontFamily);
    assert.doesNotMatch(font, /^"?Times/, "the app's stylesheet applies");
    assert.equal(await page.locator('.plain-page a[href="/"]').count() > 0, true);
    await shot("unknown-page");
    tb.takeErrors(/status of 404|HTTP 404 GET .*\/no\/such\/page/);
  });

  await t.step("chat: a suggestion puts the text in the composer, and Enter sends it", async () => {
    await openPage(page, `${wb.url}/`);
    await page.locator('.island-rail [title="New conversation"]').click();
    await page.locator(".suggestion").first().click();
    assert.equal(await page.evaluate(() => document.activeElement?.id), "composer");
    assert.notEqual(await page.locator("#composer").inputValue(), "");
    await page.keyboard.press("Enter");
    await page.locator(".msg-assistant[data-message-id]").first().waitFor();
  });

  await t.step("chat: every turn's text stays in the stored reply, in order", async () => {
    await page.locator("#composer").fill("TWO TURNS please");
    await page.locator("#composer").press("Enter");
    const reply = page.locator(".msg-assistant[data-message-id]").last();
    await page.locator(".msg-live").waitFor({ state: "detached" });
    await reply.locator("text=Then I answer").waitFor();
    const text = await reply.innerText();
    assert.match(text, /First I look at the harnesses\.[\s\S]*list_harnesses[\s\S]*Then I answer/);
    await page.reload();
    await page.waitForSelector("html[data-hydrated]");
    assert.match(
      await page.locator(".msg-assistant[data-message-id]").last().innerText(),
      /First I look at the harnesses\.[\s\S]*Then I answer/,
    );
  });

  await t.step("chat: block quotes are rendered", async () => {
    await page.locator("#composer").fill("QUOTE something");
    await page.locator("#composer").press("Enter");
    await page.locator(".msg-assistant[data-message-id] .md blockquote").last().waitFor();
    assert.match(
      await page.locator(".msg-assistant .md blockquote").last().innerText(),
      /a quoted line\s+and another/,
    );
  });

  await t.step(
    "chat: a stopped turn keeps its partial text, then says it was stopped",
    async () => {
      await page.locator("#composer").fill("SLOWLY think");
      await page.locator("#composer").press("Enter");
      const live = page.locator(".msg-live");
      await live.locator("text=Partial thoughts.").waitFor();
      await page.getByRole("button", { name: /Stop/ }).click();
      await live.waitFor({ state: "detached" });
      const reply = page.locator(".msg-assistant[data-message-id]").last();
      await reply.locator(".notice").waitFor();
      const order = await reply.evaluate((el) => {
        const text = el.querySelector(".md");
        const notice = el.querySelector(".notice");
        return text && notice
          ? text.compareDocumentPosition(notice) & Node.DOCUMENT_POSITION_FOLLOWING
          : -1;
      });
      assert.ok(order > 0, "the partial text comes first, the notice after it");
      assert.match(await reply.innerText(), /Partial thoughts\.[\s\S]*could not finish/);
      await shot("chat-stopped");
    },
  );

  await t.step("nothing failed in the page and nothing left 127.0.0.1", () => {
    assert.deepEqual(tb.errors, []);
    assert.deepEqual(tb.foreign, []);
  });

  await t.step("the launcher printed no runtime warning", async () => {
    await wb.stop();
    assert.doesNotMatch(wb.stderr(), /legacy|deprecat|Deno\.serve:/i);
  });
});
