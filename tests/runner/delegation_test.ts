/**
 * Delegation through real runs: A hands a task to the fitter of B (succeeds often) and C (fails
 * often); a cycle, a depth over `max_depth`, an untrusted peer and an exhausted budget are declined
 * with the reason; a child over its cap is stopped at the cap; the parent's cost includes the
 * child's; the child's journal verifies and names its parent.
 *
 * @module
 */

import assert from "node:assert/strict";
import { getRunAnyHarness } from "../../lib/hive/runs.ts";
import { openHive } from "../../lib/hive/open.ts";
import type { JournalEvent } from "../../lib/journal/event.ts";
import { parseJournal, verifyJournal } from "../../lib/journal/verify.ts";
import { runLineage } from "../../lib/runs/forks.ts";
import { startRun } from "../../lib/runs/service.ts";
import { trustFolder } from "../../lib/trust/store.ts";
import { writeHarness } from "../helpers/harness.ts";
import { tempDir, tempHome } from "../helpers/temp.ts";

const PRICE = { input_per_mtok: 1, output_per_mtok: 1 };
const USAGE = { input_tokens: 500, output_tokens: 500 }; // $0.001 a call

function model(replies: Record<string, unknown>[]) {
  return { provider: "scripted", max_retries: 0, pricing: PRICE, replies };
}

const DELEGATE = (args: Record<string, unknown> = { task: "Count the refunds" }) => ({
  tool_calls: [{ name: "delegate", arguments: args }],
  usage: USAGE,
});

async function journal(path: string): Promise<JournalEvent[]> {
  const bytes = await Deno.readFile(path);
  assert.equal(verifyJournal(bytes).ok, true);
  return parseJournal(bytes);
}

Deno.test("delegation: the fittest peer, declines with reasons, caps, and costs", async (t) => {
  await using _home = await tempHome();
  await using root = await tempDir();
  const b = await writeHarness(root.path, "b", {
    model: model([{ text: "B: 12 refunds", usage: USAGE }]),
  });
  const c = await writeHarness(root.path, "c", {
    model: model([{ error: { message: "C is down", status: 500 } }]),
  });
  for (const d of [b, c]) await trustFolder(d);
  // Their records: B succeeds, C fails.
  for (let i = 0; i < 3; i++) {
    assert.equal((await (await startRun(b, { input: "x" })).result).status, "success");
    assert.equal((await (await startRun(c, { input: "x" })).result).status, "error");
  }
  const db = openHive();

  await t.step("without a peer named, A picks B; the events show both candidates", async () => {
    const a = await writeHarness(root.path, "a", {
      model: model([DELEGATE(), { text: "A: B says 12", usage: USAGE }]),
      delegation: { peers: [{ name: "c", harness: "../c" }, { name: "b", harness: "../b" }] },
    });
    await trustFolder(a);
    const run = await startRun(a, { input: "How many refunds?" });
    const result = await run.result;
    assert.equal(result.status, "success", JSON.stringify(result.error));
    const events = await journal(run.trace_path);
    const considered = events.find((e) => e.type === "delegation_considered")!.payload;
    assert.deepEqual(considered.candidates, [
      {
        peer: "c",
        harness_id: "c",
        fitness: { success_rate: 0, runs: 3 },
        eligible: true,
        reason: null,
      },
      {
        peer: "b",
        harness_id: "b",
        fitness: { success_rate: 1, runs: 3 },
        eligible: true,
        reason: null,
      },
    ]);
    assert.deepEqual([considered.depth, considered.chain, considered.cost_cap_usd], [
      0,
      ["a"],
      null,
    ]);
    const started = events.find((e) => e.type === "delegation_started")!.payload;
    assert.deepEqual(
      [started.peer, started.harness_id, started.depth, started.chain],
      ["b", "b", 1, ["a", "b"]],
    );
    const finished = events.find((e) => e.type === "delegation_finished")!.payload;
    assert.deepEqual(
      [finished.peer, finished.status, finished.cost_usd, finished.turns],
      ["b", "success", 0.001, 1],
    );
    // The parent's cost includes the child's.
    assert.equal(result.delegated_cost_usd, 0.001);
    assert.equal(result.cost_usd, 0.003);
    assert.deepEqual(result.delegations, [
      {
        peer: "b",
        harness_id: "b",
        run_id: started.child_run_id,
        status: "success",
        cost_usd: 0.001,
        turns: 1,
      },
    ]);
    // The child: an ordinary run of B, journalled, naming A's run as its parent.
    const child = getRunAnyHarness(db, String(started.child_run_id))!;
    assert.equal(child.parent_run_id, run.run_id);
    assert.equal(child.harness_id, "b");
    await journal(child.trace_path);
    const tool = events.find((e) => e.type === "tool_result")!.payload;
    assert.match(String(tool.content), /B: 12 refunds/);
    assert.deepEqual(runLineage(db, run.run_id).children, [
      {
        kind: "delegation",
        harness_id: "b",
        run_id: String(started.child_run_id),
        status: "success",
        cost_usd: 0.001,
      },
    ]);
  });

  await t.step("a cycle back to A is declined with the reason", async () => {
    const a2 = await writeHarness(root.path, "a2", {
      model: model([DELEGATE(), { text: "A2 done", usage: USAGE }]),
      delegation: { peers: [{ name: "loop", harness: "../loop" }] },
    });
    const loop = await writeHarness(root.path, "loop", {
      model: model([DELEGATE(), { text: "could not", usage: USAGE }]),
      delegation: { peers: [{ name: "back", harness: "../a2" }] },
    });
    for (const d of [a2, loop]) await trustFolder(d);
    const run = await startRun(a2, { input: "go" });
    const result = await run.result;
    const child = result.delegations![0]!;
    const childEvents = await journal(getRunAnyHarness(db, child.run_id)!.trace_path);
    const declined = childEvents.find((e) => e.type === "delegation_declined")!.payload;
    assert.match(String(declined.reason), /already in the chain \(a2 → loop\): a cycle/);
    const toolResult = childEvents.find((e) => e.type === "tool_result")!.payload;
    assert.equal(toolResult.ok, false);
    assert.match(JSON.stringify(toolResult.error), /declined/);
  });

  await t.step(
    "depth over max_depth, an untrusted peer and no budget are declined; nothing starts",
    async () => {
      const untrusted = await writeHarness(root.path, "untrusted", {
        model: model([{ text: "x" }]),
      });
      const shallow = await writeHarness(root.path, "shallow", {
        model: model([
          DELEGATE({ task: "t", peer: "b" }),
          DELEGATE({ task: "t", peer: "stranger" }),
          DELEGATE({ task: "t", peer: "broke" }),
          { text: "done", usage: USAGE },
        ]),
        delegation: {
          max_depth: 0,
          peers: [
            { name: "b", harness: "../b" },
            { name: "stranger", harness: "../untrusted" },
            { name: "broke", harness: "../b", max_cost_usd: 0 },
          ],
        },
      });
      await trustFolder(shallow);
      const run = await startRun(shallow, { input: "go" });
      const result = await run.result;
      assert.equal(result.status, "success");
      const reasons = (await journal(run.trace_path)).filter((e) =>
        e.type === "delegation_declined"
      )
        .map((e) => String(e.payload.reason));
      assert.equal(reasons.length, 3);
      assert.match(reasons[0]!, /depth would be 1, over max_depth 0/);
      assert.match(reasons[1]!, /not trusted/);
      assert.match(reasons[2]!, /depth would be 1/);
      const poor = await writeHarness(root.path, "poor", {
        model: model([DELEGATE({ task: "t" }), { text: "done", usage: USAGE }]),
        delegation: { peers: [{ name: "broke", harness: "../b", max_cost_usd: 0 }] },
      });
      await trustFolder(poor);
      const poorRun = await startRun(poor, { input: "go" });
      await poorRun.result;
      const poorDecline = (await journal(poorRun.trace_path)).find((e) =>
        e.type === "delegation_declined"
      )!;
      assert.match(String(poorDecline.payload.reason), /broke: no budget is left for it/);
      assert.equal(result.delegations, undefined);
      const untrustedRuns = db.prepare(
        "SELECT count(*) AS n FROM runs WHERE harness_id = 'untrusted'",
      )
        .get() as { n: number };
      assert.equal(Number(untrustedRuns.n), 0, "an untrusted peer is never started");
      void untrusted;
    },
  );

  await t.step("a child that would exceed its cap is stopped at the cap", async () => {
    const spender = await writeHarness(root.path, "spender", {
      model: model([
        { tool_calls: [{ name: "list_files", arguments: {} }], usage: USAGE },
        { text: "spent", usage: USAGE },
      ]),
      tools: [{ builtin: "list_files" }],
    });
    const thrifty = await writeHarness(root.path, "thrifty", {
      model: model([DELEGATE(), { text: "ok", usage: USAGE }]),
      delegation: { max_cost_usd: 0.0015, peers: [{ name: "spender", harness: "../spender" }] },
    });
    for (const d of [spender, thrifty]) await trustFolder(d);
    const run = await startRun(thrifty, { input: "go" });
    const result = await run.result;
    const events = await journal(run.trace_path);
    const started = events.find((e) => e.type === "delegation_started")!.payload;
    assert.equal(started.cost_cap_usd, 0.0015);
    const child = result.delegations![0]!;
    assert.equal(child.status, "guardrail_halt");
    assert.ok(child.cost_usd <= 0.002, `stopped at the first call over the cap: ${child.cost_usd}`);
    const childRow = getRunAnyHarness(db, child.run_id)!;
    assert.match(String(childRow.failure_signature), /delegation\.cost_cap/);
    assert.equal(result.delegated_cost_usd, child.cost_usd);
  });
});
