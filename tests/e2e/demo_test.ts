/**
 * `deno task demo` (scripts/demo.ts) on a fresh folder, started twice: the example is made once, run,
 * and the workbench opens with one "Getting started" conversation, also after a restart in which the
 * conversation's selection changed.
 *
 * @module
 */

import assert from "node:assert/strict";
import { tempDir } from "../helpers/temp.ts";
import { workbenchCall } from "../helpers/workbench.ts";

const DEMO = new URL("../../scripts/demo.ts", import.meta.url).pathname;

/** Starts the demo and waits for its workbench line; returns the URL and a stopper. */
async function startDemo(home: string, cwd: string) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", DEMO],
    cwd,
    env: {
      FRAMEWORK_HOME: home,
      FRAMEWORK_UI_PORT: "0",
      FRAMEWORK_COPILOT_MODEL: "",
      OPENAI_API_KEY: "",
      ANTHROPIC_API_KEY: "",
      NO_COLOR: "1",
    },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const errDone = child.stderr.pipeTo(new WritableStream()).catch(() => {});
  const reader = child.stdout.getReader();
  let out = "";
  while (!/Workbench: (\S+)/.test(out)) {
    const { value, done } = await reader.read();
    if (done) break;
    out += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  const outDone = child.stdout.pipeTo(new WritableStream()).catch(() => {});
  const url = /Workbench: (\S+)/.exec(out)?.[1];
  return {
    url,
    out,
    async stop() {
      try {
        child.kill("SIGTERM");
      } catch {
        // gone
      }
      await child.status;
      await Promise.all([errDone, outDone]);
    },
  };
}

Deno.test("demo: one Getting started conversation, however often it starts", async () => {
  await using home = await tempDir();
  await using cwd = await tempDir();
  const first = await startDemo(home.path, cwd.path);
  try {
    assert.ok(first.url, first.out);
    assert.match(first.out, /Ran it once: success/);
    // Without a copilot model, the banner says what the chat can do anyway.
    assert.match(first.out, /slash commands that call the copilot's tools directly: \/run <input>/);
    const list = await workbenchCall({ url: first.url! }, "GET", "/api/conversations");
    const started = list.json.data.conversations;
    assert.deepEqual(started.map((c: { title: string }) => c.title), ["Getting started"]);
    // The person moves on: the conversation no longer selects the example.
    const patched = await workbenchCall(
      { url: first.url! },
      "PATCH",
      `/api/conversations/${started[0].id}`,
      { selected_harness_id: null },
    );
    assert.equal(patched.status, 200);
  } finally {
    await first.stop();
  }
  for (let i = 0; i < 2; i++) {
    const again = await startDemo(home.path, cwd.path);
    try {
      assert.match(again.out, /Using the example harness/);
      const list = await workbenchCall({ url: again.url! }, "GET", "/api/conversations");
      assert.deepEqual(
        list.json.data.conversations.map((c: { title: string }) => c.title),
        ["Getting started"],
      );
    } finally {
      await again.stop();
    }
  }
});
