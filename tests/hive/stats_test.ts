import assert from "node:assert/strict";
import { openHive } from "../../lib/hive/open.ts";
import { harnessStats } from "../../lib/hive/stats.ts";
import { startRun } from "../../lib/runs/service.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir } from "../helpers/temp.ts";
import { storeHome, STORES } from "../helpers/hive_stores.ts";
import { byId } from "../helpers/hive.ts";

for (const store of STORES) {
  Deno.test(`harnessStats() counts statuses, cost, turns, the median duration and failure groups [${store}]`, async () => {
    await using _home = await storeHome(store);
    await using tmp = await tempDir();
    const pricing = { input_per_mtok: 1, output_per_mtok: 1 };
    const usage = { input_tokens: 500, output_tokens: 500 };
    const dir = await writeHarness(tmp.path, "mix", {
      model: {
        ...scripted([{ text: "fine", usage }]),
        max_retries: 0,
        pricing,
        scenarios: [
          { match: "^fail", replies: [{ error: { status: 503, message: "down" } }] },
          {
            match: "^loop",
            replies: [{ tool_calls: [{ name: "list_files" }], usage }, {
              tool_calls: [{ name: "list_files" }],
              usage,
            }],
          },
        ],
      },
      tools: [{ builtin: "list_files" }],
      limits: { max_turns: 1 },
    });
    for (const input of ["ok 1", "ok 2", "ok 3", "fail 1", "fail 2", "loop 1"]) {
      await (await startRun(dir, { input })).result;
    }
    await writeHarness(tmp.path, "other", { model: scripted([{ text: "x" }]) });
    await (await startRun(`${tmp.path}/other`, { input: "x" })).result;

    const s = harnessStats(openHive(), byId("mix"));
    assert.equal(s.harness_id, "mix");
    assert.equal(s.runs.total, 6);
    assert.equal(s.runs.running, 0);
    assert.deepEqual(s.runs.by_status, {
      success: 3,
      verify_failed: 0,
      guardrail_halt: 0,
      max_turns: 1,
      error: 2,
    });
    assert.equal(s.runs.success_rate, 0.5);
    assert.equal(
      s.runs.cost_usd,
      4 * 0.001,
      "three successes and one max_turns call at $0.001 each",
    );
    assert.equal(
      s.runs.avg_turns,
      1,
      "every run made one model call (a failed call still counts its turn)",
    );
    assert.equal(typeof s.runs.p50_duration_ms, "number");
    assert.deepEqual(s.hive, { harnesses: 2, runs: 7 });
    assert.equal(s.recent_failures.length, 3);
    assert.deepEqual(s.recent_failures.map((f) => f.signature), [
      "max_turns",
      "error:provider:http_503",
      "error:provider:http_503",
    ]);
    assert.ok(s.recent_failures.every((f) => f.excerpt.length > 0 && f.ended_at));
    assert.deepEqual(s.failure_groups.map((g) => [g.signature, g.count]), [[
      "error:provider:http_503",
      2,
    ], ["max_turns", 1]]);
  });
}

for (const store of STORES) {
  Deno.test(`harnessStats() of a harness without runs [${store}]`, async () => {
    await using _home = await storeHome(store);
    const s = harnessStats(openHive(), byId("nothing"));
    assert.equal(s.runs.total, 0);
    assert.equal(s.runs.success_rate, null);
    assert.equal(s.runs.avg_turns, null);
    assert.equal(s.runs.p50_duration_ms, null);
    assert.deepEqual(s.recent_failures, []);
  });
}
