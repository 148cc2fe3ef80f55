/**
 * The chat page hosted by a real control plane, in Chromium: `framework generate --input chat`
 * writes it (and `interface.input: chat` validates, another kind is refused naming chat); `GET /`
 * serves it; with a pasted token two messages make one thread with two turns (`GET /threads/{id}`),
 * the second run's first model call holding the first turn; a reload shows the conversation again;
 * **New conversation** starts another thread. The page makes no request before a token is pasted,
 * and nothing leaves 127.0.0.1. Screenshots go to tests/.artifacts/threads/.
 *
 * @module
 */

import assert from "node:assert/strict";
import { launchBrowser } from "../helpers/browser.ts";
import { runCli } from "../helpers/cli.ts";
import { jsonError, jsonOk } from "../helpers/cli_assert.ts";
import { memberToken, startControlPlane } from "../helpers/control_plane.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir } from "../helpers/temp.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** Answers by the input's first word. */
function model() {
  return scripted([{ text: "Say one or two." }], {
    scenarios: [
      { match: "^one", replies: [{ text: "Answer *one*." }] },
      { match: "^two", replies: [{ text: "Answer two." }] },
    ],
  });
}

Deno.test("generate --input chat; interface.input chat validates, another kind is refused", async () => {
  await using home = await tempDir("fw-chat-gen-home-");
  await using root = await tempDir("fw-chat-gen-");
  const dir = await writeHarness(root.path, "talker", { model: model() });
  const made = jsonOk(
    await runCli(["generate", dir, "--input", "chat", "--json"], { home: home.path }),
  );
  assert.equal(made.input, "chat");
  const html = await Deno.readTextFile(`${dir}/interfaces/default/index.html`);
  assert.match(html, /id="log"/);
  assert.match(html, /"input":"chat"/);
  assert.doesNotMatch(html, /<(script|link|img)[^>]+(src|href)=/, "no external asset");
  const bad = jsonError(
    await runCli(["generate", dir, "--input", "form", "--force", "--json"], { home: home.path }),
    "bad_input",
    2,
  );
  assert.match(bad.message, /text, url, file or chat/);

  const chat = await writeHarness(root.path, "chat-spec", {
    model: model(),
    interface: { input: "chat" },
  });
  assert.equal(jsonOk(await runCli(["validate", chat, "--json"], { home: home.path })).valid, true);
  const wrong = await writeHarness(root.path, "wrong-spec", {
    model: model(),
    interface: { input: "form" },
  });
  const refused = jsonOk(await runCli(["validate", wrong, "--json"], { home: home.path }), 2);
  assert.equal(refused.valid, false);
  const issue = refused.issues.find((i: Json) => i.path === "interface.input");
  assert.ok(issue, JSON.stringify(refused.issues));
  assert.match(issue.message, /chat/);
});

Deno.test("hosted chat page: GET /, token pasted, two messages are one thread with two turns", async (t) => {
  await using home = await tempDir("fw-chat-home-");
  await using root = await tempDir("fw-chat-");
  const dir = await writeHarness(root.path, "talker", { name: "Talker", model: model() });
  jsonOk(await runCli(["generate", dir, "--input", "chat", "--json"], { home: home.path }));
  const visitor = await memberToken(dir, home.path, "visitor", ["run", "read"]);
  await using plane = await startControlPlane(dir, {
    home: home.path,
    env: { FRAMEWORK_AUTHORIZED_KEYS: "" },
  });
  const api = async (path: string) => {
    const res = await fetch(`${plane.url}${path}`, {
      headers: { authorization: `Bearer ${visitor.token}` },
    });
    return { status: res.status, json: await res.json() };
  };
  await using tb = await launchBrowser();
  const { page } = tb;
  const turnsShown = () => page.locator(".turn-user .said").allInnerTexts();
  let threadId = "";

  await t.step("without a token nothing is sent and the message stays in the box", async () => {
    await page.goto(`${plane.url}/`);
    await page.locator("h1", { hasText: "Talker" }).waitFor();
    await page.locator("#input").fill("one: hello");
    await page.locator("#run").click();
    await page.locator(".turn-harness .error", { hasText: "Paste a token" }).waitFor();
    assert.equal(await page.locator("#input").inputValue(), "one: hello");
    assert.equal((await api("/threads")).json.data.threads.length, 0);
  });

  await t.step("two messages: one thread, two turns, the second given the first", async () => {
    await page.locator("#token").fill(visitor.token);
    await page.locator("#input").press("Enter");
    await page.locator(".turn-harness em", { hasText: "one" }).waitFor();
    await page.locator("#input").fill("two: and now?");
    await page.locator("#run").click();
    await page.locator(".turn-harness", { hasText: "Answer two." }).waitFor();
    threadId = await page.evaluate(() => sessionStorage.getItem("framework-thread") ?? "");
    assert.match(threadId, /^thr_[0-9A-Z]{26}$/);
    assert.equal(
      await page.evaluate(() => sessionStorage.getItem("framework-token")),
      visitor.token,
    );
    const thread = (await api(`/threads/${threadId}`)).json.data;
    assert.equal(thread.owner, visitor.key_id);
    assert.equal(thread.turns, 2);
    assert.deepEqual(thread.runs.map((r: Json) => [r.status, r.input, r.output]), [
      ["success", "one: hello", "Answer *one*."],
      ["success", "two: and now?", "Answer two."],
    ]);
    const trace = (await api(`/trace/${thread.runs[1].run_id}`)).json.data;
    const call = trace.events.find((e: Json) => e.type === "model_call");
    assert.deepEqual(call.payload.append, [
      { role: "user", content: "one: hello" },
      { role: "assistant", content: "Answer *one*." },
      { role: "user", content: "two: and now?" },
    ]);
    await tb.screenshot("threads", "hosted-chat-1280");
    await page.setViewportSize({ width: 1000, height: 800 });
    await tb.screenshot("threads", "hosted-chat-1000");
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  await t.step("a reload shows the conversation; New conversation starts another", async () => {
    await page.reload();
    await page.locator(".turn-harness", { hasText: "Answer two." }).waitFor();
    assert.deepEqual(await turnsShown(), ["one: hello", "two: and now?"]);
    await page.locator("#new").click();
    assert.deepEqual(await turnsShown(), []);
    assert.equal(await page.evaluate(() => sessionStorage.getItem("framework-thread")), null);
    await page.locator("#input").fill("one: again");
    await page.locator("#input").press("Enter");
    await page.locator(".turn-harness .status-success").waitFor();
    const threads = (await api("/threads")).json.data.threads;
    assert.equal(threads.length, 2);
    const fresh = threads.find((x: Json) => x.thread_id !== threadId);
    assert.equal(fresh.turns, 1);
    assert.equal(
      await page.evaluate(() => sessionStorage.getItem("framework-thread")),
      fresh.thread_id,
    );
  });

  await t.step("no page errors and nothing left 127.0.0.1", () => {
    assert.deepEqual(tb.errors, []);
    assert.deepEqual(tb.foreign, []);
  });
});
