/**
 * A proposal measured before it is applied: its YAML change is evaluated on a temporary copy, beside
 * the current version's evaluation on the same set; nothing of the harness or the proposal changes.
 * And `framework eval` / `versions` / `proposals show --measure` as subprocesses.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { measureProposal } from "../../lib/evals/measure_proposal.ts";
import { harnessStats } from "../../lib/hive/stats.ts";
import { openHive } from "../../lib/hive/open.ts";
import { getProposal, insertProposal, type Proposal } from "../../lib/hive/proposals.ts";
import { createRunService } from "../../lib/runs/service.ts";
import { loadSpec } from "../../lib/harness_spec/load.ts";
import { runCli } from "../helpers/cli.ts";
import { jsonError, jsonOk } from "../helpers/cli_assert.ts";
import { writeHarness } from "../helpers/harness.ts";
import { tempDir, tempHome } from "../helpers/temp.ts";

const SET = `cases:
  - id: greet
    input: hello
    expect: [{ builtin: contains, text: Hi }]
  - id: sum
    input: add 2 and 3
    expect: [{ builtin: contains, text: "5" }]
`;

/** `sum` needs three turns; the harness allows two until a proposal raises the limit. */
const SPEC = {
  model: {
    provider: "scripted",
    scenarios: [
      { match: "^hello", replies: [{ text: "Hi!" }] },
      {
        match: "^add",
        replies: [
          { tool_calls: [{ name: "list_files", arguments: {} }] },
          { tool_calls: [{ name: "list_files", arguments: {} }] },
          { text: "5" },
        ],
      },
    ],
  },
  tools: [{ builtin: "list_files" }],
  limits: { max_turns: 2 },
};

function proposal(id: string, version: string): Proposal {
  const now = new Date().toISOString();
  return {
    id,
    harness_id: "measured",
    status: "queued",
    trigger: "cli",
    created_at: now,
    updated_at: now,
    rationale: "sum needs one more turn",
    objective: null,
    evidence: {
      run_ids: [],
      failure_signatures: [],
      runs: { total: 0, by_status: {}, avg_cost_usd: null, avg_turns: null },
    },
    yaml_changes: [{ path: "limits.max_turns", op: "set", value: 5, status: "pending" }],
    code_changes: [],
    spec_version: version,
    evolver: { provider: "scripted", model: "test", cost_usd: 0 },
    decided_at: null,
    reason: null,
  } as Proposal;
}

Deno.test("measureProposal: the proposal's YAML is evaluated on a copy, nothing is applied", async () => {
  await using _home = await tempHome();
  await using root = await tempDir();
  const dir = await writeHarness(root.path, "measured", SPEC, { "evals/smoke.yaml": SET });
  const db = openHive();
  const loaded = await loadSpec(dir);
  insertProposal(db, proposal("prop_01MEASURE00000000000000000", loaded.version), dir);
  const before = await Deno.readTextFile(join(dir, "harness.yaml"));
  const m = await measureProposal(db, createRunService(), dir, "prop_01MEASURE00000000000000000");
  assert.equal(m.set, "smoke");
  assert.equal(m.baseline.spec_version, loaded.version);
  assert.equal(m.baseline.pass_rate, 0.5);
  assert.equal(m.measured.pass_rate, 1);
  assert.equal(m.measured.measured_on, "copy");
  assert.equal(m.delta.pass_rate, 0.5);
  assert.deepEqual(m.cases.map((c) => [c.case_id, c.change]), [
    ["greet", "still_passing"],
    ["sum", "fixed"],
  ]);
  assert.equal(await Deno.readTextFile(join(dir, "harness.yaml")), before);
  const ref = { id: "measured", dir };
  assert.equal(getProposal(db, ref, "prop_01MEASURE00000000000000000").status, "queued");
  assert.equal(harnessStats(db, ref).runs.total, 0);
});

Deno.test("framework eval, versions and proposals show --measure", async () => {
  await using home = await tempHome();
  await using cwd = await tempDir("fw-ev-cwd-");
  const cli = (args: string[]) => runCli(args, { home: home.path, cwd: cwd.path });
  await writeHarness(cwd.path, "measured", SPEC, { "evals/smoke.yaml": SET });

  const failed = await cli(["eval", "measured", "--approve", "--json"]);
  const result = jsonOk(failed, 3);
  assert.deepEqual(
    result.cases.map((c: { case_id: string; passed: boolean }) => [c.case_id, c.passed]),
    [
      ["greet", true],
      ["sum", false],
    ],
  );
  assert.match(failed.stderr, /\[2\/2\]/);
  const human = await cli(["eval", "measured"]);
  assert.equal(human.code, 3);
  assert.match(human.stdout, /sum\s+FAIL\s+max_turns .*expected success, got max_turns/);
  assert.match(human.stdout, /smoke: 1\/2 passed \(50\.0%\)/);
  jsonError(await cli(["eval", "measured", "--set", "nope", "--json"]), "bad_input", 2);
  const schema = jsonOk(await cli(["schema", "--eval", "--json"]));
  assert.ok(schema.properties.cases);

  // A proposal (stored as the evolver would) measured from the CLI before it is applied.
  const dir = await Deno.realPath(join(cwd.path, "measured"));
  const id = "prop_01MEASURECLI000000000000000";
  insertProposal(openHive(), proposal(id, (await loadSpec(dir)).version), dir);
  const shown = jsonOk(await cli(["proposals", "show", "measured", id, "--measure", "--json"]));
  assert.equal(shown.measure.delta.pass_rate, 0.5);
  assert.equal(shown.proposal.status, "queued");
  const told = await cli(["proposals", "show", "measured", id, "--measure"]);
  assert.match(told.stdout, /Measured on smoke: pass rate 50\.0% → 100\.0% \(\+50\.0%\)/);
  assert.match(told.stdout, /sum: fixed/);

  jsonOk(await cli(["set", "measured", "limits.max_turns", "5", "--json"]));
  const fixed = jsonOk(await cli(["eval", "measured", "--json"]));
  assert.equal(fixed.pass_rate, 1);
  const listed = jsonOk(await cli(["versions", "measured", "--json"]));
  assert.ok(listed.versions.length >= 1);
  const current = listed.versions.find((v: { current: boolean }) => v.current);
  assert.ok(current, "the current version is marked");
  const stats = jsonOk(await cli(["stats", "measured", "--json"]));
  assert.equal(stats.runs.total, 0, "eval runs are not live runs");
});
