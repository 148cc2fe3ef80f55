/**
 * A caller's instructions (an OpenAI client's system messages) through real runs: added after the
 * harness's system prompt, never instead of it, kept through a change of mode, journalled in
 * `run_started` (`system`, and `caller_instructions` alone), and kept by a fork of the run, which
 * reads them from its parent's journal.
 *
 * @module
 */

import assert from "node:assert/strict";
import { openHive } from "../../lib/hive/open.ts";
import type { JournalEvent } from "../../lib/journal/event.ts";
import { parseJournal } from "../../lib/journal/verify.ts";
import { forkRun, resumeFork } from "../../lib/runs/forks.ts";
import { createRunService, startRun } from "../../lib/runs/service.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir, tempHome } from "../helpers/temp.ts";

async function runStarted(path: string): Promise<JournalEvent["payload"]> {
  const events = parseJournal(await Deno.readFile(path));
  return events.find((e) => e.type === "run_started")!.payload;
}

Deno.test("caller instructions: after the harness's prompt, journalled, kept by a fork", async () => {
  await using _home = await tempHome();
  await using root = await tempDir();
  const dir = await writeHarness(root.path, "kind", {
    instructions: "Be kind.",
    model: scripted([{ text: "first" }, { text: "second" }]),
  });
  const run = await startRun(dir, { input: "Hi" }, {
    callerInstructions: "  Answer in French.  ",
    history: [],
  });
  assert.equal((await run.result).status, "success");
  const started = await runStarted(run.trace_path);
  assert.equal(started.system, "Be kind.\n\n## Instructions from the caller\nAnswer in French.");
  assert.equal(started.caller_instructions, "Answer in French.");

  // Without them, the prompt and run_started are as they always were.
  const plain = await startRun(dir, { input: "Hi" });
  await plain.result;
  const plainStarted = await runStarted(plain.trace_path);
  assert.equal(plainStarted.system, "Be kind.");
  assert.ok(!("caller_instructions" in plainStarted));

  // A fork re-enters the conversation the caller shaped: it keeps the caller's instructions.
  const at = parseJournal(await Deno.readFile(run.trace_path)).find((e) => e.type === "model_call")!
    .seq;
  const fork = await forkRun(openHive(), run.run_id, { at, name: "kind-branch" }, "test");
  const runs = createRunService();
  try {
    const resumed = await (await resumeFork(openHive(), runs, fork.harness.root_path)).started;
    assert.equal((await resumed.result).status, "success");
    const forkStarted = await runStarted(resumed.trace_path);
    assert.equal(forkStarted.caller_instructions, "Answer in French.");
    assert.equal(
      forkStarted.system,
      "Be kind.\n\n## Instructions from the caller\nAnswer in French.",
    );
  } finally {
    await runs.close();
  }
});
