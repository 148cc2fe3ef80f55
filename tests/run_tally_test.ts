/**
 * `runTally` over the journals of real runs: it equals the run's own cost and turns for a priced run
 * with tool calls, a run that delegated to a peer, a resumed fork and a run stopped during a model
 * call; over a prefix it counts what was written so far.
 *
 * @module
 */

import assert from "node:assert/strict";
import { openHive } from "../lib/hive/open.ts";
import type { JournalEvent } from "../lib/journal/event.ts";
import { runTally } from "../lib/run_tally.ts";
import { parseJournal } from "../lib/journal/verify.ts";
import type { RunResult } from "../lib/run_types.ts";
import { forkRun, resumeFork } from "../lib/runs/forks.ts";
import { createRunService, startRun } from "../lib/runs/service.ts";
import { trustFolder } from "../lib/trust/store.ts";
import { writeHarness } from "./helpers/harness.ts";
import { tempDir, tempHome } from "./helpers/temp.ts";

const PRICE = { input_per_mtok: 10, output_per_mtok: 20 };
const USAGE = { input_tokens: 1000, output_tokens: 500 }; // $0.02 a call

function model(replies: Record<string, unknown>[], name = "tally-script") {
  return { provider: "scripted" as const, name, max_retries: 0, pricing: PRICE, replies };
}

const LIST = { tool_calls: [{ name: "list_files", arguments: {} }], usage: USAGE };

async function events(path: string): Promise<JournalEvent[]> {
  return parseJournal(await Deno.readFile(path));
}

function assertTallies(journal: JournalEvent[], result: RunResult) {
  assert.deepEqual(runTally(journal), { cost_usd: result.cost_usd, turns: result.turns });
}

Deno.test("runTally() equals the run's cost and turns, and counts a prefix as far as it goes", async (t) => {
  await using _home = await tempHome();
  await using root = await tempDir();

  await t.step("a priced run with tool calls, and its prefixes", async () => {
    const dir = await writeHarness(root.path, "priced", {
      model: model([LIST, LIST, { text: "done", usage: USAGE }]),
      tools: [{ builtin: "list_files" }],
    });
    const run = await startRun(dir, { input: "look" });
    const result = await run.result;
    assert.equal(result.status, "success");
    assert.equal(result.turns, 3);
    const journal = await events(run.trace_path);
    assertTallies(journal, result);
    const firstResponse = journal.findIndex((e) => e.type === "model_response");
    assert.deepEqual(runTally(journal.slice(0, firstResponse)), { cost_usd: 0, turns: 1 });
    assert.deepEqual(runTally(journal.slice(0, firstResponse + 1)), { cost_usd: 0.02, turns: 1 });
    assert.deepEqual(runTally([]), { cost_usd: 0, turns: 0 });
  });

  await t.step("a run that delegated: the child's cost is the parent's too", async () => {
    const peer = await writeHarness(root.path, "peer", {
      model: model([{ text: "peer answer", usage: USAGE }]),
    });
    await trustFolder(peer);
    const dir = await writeHarness(root.path, "lead", {
      model: model([
        { tool_calls: [{ name: "delegate", arguments: { task: "help" } }], usage: USAGE },
        { text: "lead done", usage: USAGE },
      ]),
      delegation: { peers: [{ name: "peer", harness: "../peer" }] },
    });
    await trustFolder(dir);
    const run = await startRun(dir, { input: "delegate" });
    const result = await run.result;
    assert.equal(result.status, "success", JSON.stringify(result.error));
    assert.equal(result.delegated_cost_usd, 0.02);
    assert.equal(result.cost_usd, 0.06);
    assertTallies(await events(run.trace_path), result);
  });

  await t.step("a resumed fork continues the parent's turns", async () => {
    const dir = await writeHarness(root.path, "parent", {
      model: model([LIST, LIST, { text: "parent done", usage: USAGE }]),
      tools: [{ builtin: "list_files" }],
    });
    const parent = await startRun(dir, { input: "look" });
    await parent.result;
    const calls = (await events(parent.trace_path)).filter((e) => e.type === "model_call");
    const db = openHive();
    const fork = await forkRun(db, parent.run_id, {
      at: calls[2]!.seq,
      name: "branch",
      model: model([{ text: "fork done", usage: USAGE }], "fork-script"),
    }, "test");
    const resumed = await resumeFork(db, createRunService(), fork.harness.root_path);
    const handle = await resumed.started;
    const result = await resumed.result;
    assert.equal(result.status, "success", JSON.stringify(result.error));
    assert.equal(result.turns, 3);
    assertTallies(await events(handle.trace_path), result);
  });

  await t.step("a run stopped during a model call counts that turn", async () => {
    const dir = await writeHarness(root.path, "stopped", {
      model: model([LIST, { text: "late", usage: USAGE, delay_ms: 30_000 }]),
      tools: [{ builtin: "list_files" }],
    });
    const run = await startRun(dir, { input: "look" });
    for await (const e of run.events) if (e.type === "model_call" && e.payload.turn === 2) break;
    run.stop();
    const result = await run.result;
    assert.equal(result.status, "error");
    assert.equal(result.turns, 2);
    assertTallies(await events(run.trace_path), result);
  });
});
