/**
 * Versions and evaluations through real runs: three versions of a scripted harness (one fails a
 * case, the next fixes it, the third breaks another), an eval of each, the comparison case by case
 * and by failure signature, eval runs journalled and kept out of the live statistics, and restore
 * bringing back a version's exact bytes as a new version.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { setField } from "../../lib/construct/set_field.ts";
import {
  frozenRootsChangedByRestore,
  restoreVersion,
} from "../../lib/construct/restore_version.ts";
import { compareVersions, versionTimeline } from "../../lib/evals/compare.ts";
import { runEval, runEvalOnText } from "../../lib/evals/run_eval.ts";
import { openHive } from "../../lib/hive/open.ts";
import { harnessStats } from "../../lib/hive/stats.ts";
import { listSpecVersions } from "../../lib/hive/spec_versions.ts";
import { findRun, readJournalBytes } from "../../lib/journal/trace.ts";
import { verifyJournal } from "../../lib/journal/verify.ts";
import { createRunService } from "../../lib/runs/service.ts";
import { loadSpec } from "../../lib/harness_spec/load.ts";
import { validateHarness } from "../../lib/validate/validate.ts";
import { writeHarness } from "../helpers/harness.ts";
import { tempDir, tempHome } from "../helpers/temp.ts";

const SET = `cases:
  - id: greet
    input: hello
    expect:
      - builtin: contains
        text: Hi
  - id: sum
    input: add 2 and 3
    expect:
      - builtin: contains
        text: "5"
`;

/** A scripted model answering `hello` and `add …` as told. */
function model(name: string, hello: Record<string, unknown>, add: Record<string, unknown>) {
  return {
    provider: "scripted",
    name,
    max_retries: 0,
    scenarios: [
      { match: "^hello", replies: [hello] },
      { match: "^add", replies: [add] },
    ],
  };
}

const V1 = model("v1", { text: "Hi!" }, { error: { message: "the adder is down", status: 500 } });
const V2 = model("v2", { text: "Hi!" }, { text: "5" });
const V3 = model("v3", { error: { message: "bad greeting", status: 400 } }, { text: "5" });

Deno.test("versions: three versions evaluated, compared case by case and by signature, restored", async (t) => {
  await using _home = await tempHome();
  await using root = await tempDir();
  const dir = await writeHarness(root.path, "versioned", { model: V2 }, {
    "evals/smoke.yaml": SET,
  });
  const db = openHive();
  const runs = createRunService();
  const ref = { id: "versioned", dir };
  const versions: string[] = [];
  for (const m of [V1, V2, V3]) {
    const r = await setField(dir, "model", m, { actor: "cli", policy: "local" });
    versions.push(r.spec_version);
    const result = await runEval(db, runs, dir, { set: "smoke" });
    assert.equal(result.spec_version, r.spec_version);
  }
  const [v1, v2, v3] = versions as [string, string, string];

  await t.step(
    "each eval is stored with its cases; eval runs verify and stay out of /stats",
    async () => {
      const c12 = compareVersions(db, ref, v1, v2);
      assert.equal(c12.evals.set, "smoke");
      assert.deepEqual(c12.evals.a!.cases.map((c) => [c.case_id, c.passed, c.status]), [
        ["greet", true, "success"],
        ["sum", false, "error"],
      ]);
      assert.equal(c12.evals.a!.pass_rate, 0.5);
      for (const c of [...c12.evals.a!.cases, ...c12.evals.b!.cases]) {
        const row = findRun(db, null, c.run_id!);
        assert.equal(row.live, 0);
        assert.equal(
          row.eval_id,
          c12.evals.a!.cases.includes(c) ? c12.evals.a!.eval_id : c12.evals.b!.eval_id,
        );
        assert.equal(verifyJournal(await readJournalBytes(row)).ok, true);
      }
      const sumCheck = c12.evals.a!.cases[1]!.checks;
      assert.match(sumCheck[0]!.message, /expected success, got error/);
      assert.equal(harnessStats(db, ref).runs.total, 0, "eval runs are not live runs");
    },
  );

  await t.step("compare v1 → v2: sum fixed, its signature disappeared", () => {
    const c = compareVersions(db, ref, v1.slice(0, 8), v2);
    assert.deepEqual(c.evals.cases, [
      { case_id: "greet", a: true, b: true, change: "still_passing" },
      { case_id: "sum", a: false, b: true, change: "fixed" },
    ]);
    assert.deepEqual(c.signatures.appeared, []);
    assert.equal(c.signatures.disappeared.length, 1);
    assert.match(c.signatures.disappeared[0]!.signature, /^error:provider/);
    assert.equal(c.signatures.disappeared[0]!.count_a, 1);
    assert.match(c.yaml_diff, /^-\s+name: v1$/m);
    assert.match(c.yaml_diff, /^\+\s+name: v2$/m);
  });

  await t.step("compare v2 → v3: greet broken, a new signature appeared", () => {
    const c = compareVersions(db, ref, v2, v3);
    assert.deepEqual(c.evals.cases.map((x) => [x.case_id, x.change]), [
      ["greet", "broken"],
      ["sum", "still_passing"],
    ]);
    assert.equal(c.signatures.appeared.length, 1);
    assert.notEqual(c.signatures.appeared[0]!.example_run_b, null);
    assert.deepEqual(c.signatures.disappeared, []);
    const c13 = compareVersions(db, ref, v1, v3);
    assert.deepEqual(c13.evals.cases.map((x) => x.change), ["broken", "fixed"]);
    assert.equal(c13.signatures.appeared.length, 1);
    assert.equal(c13.signatures.disappeared.length, 1);
  });

  await t.step("live metrics per version, and --count-as-live", async () => {
    await runEval(db, runs, dir, { set: "smoke", countAsLive: true });
    const stats = harnessStats(db, ref);
    assert.equal(stats.runs.total, 2, "counted as live on request");
    const c = compareVersions(db, ref, v2, v3);
    assert.deepEqual([c.metrics.a.runs, c.metrics.b.runs], [0, 2]);
    assert.equal(c.metrics.b.success_rate, 0.5);
    assert.equal(c.metrics.delta.runs, 2);
    assert.equal(c.metrics.delta.success_rate, null, "no live run of v2 to compare with");
  });

  await t.step("restore brings back v1's exact bytes as a new version", async () => {
    // The page asks first which frozen fields a restore would change (the versions differ in model).
    assert.deepEqual(await frozenRootsChangedByRestore(db, ref, v1, "workbench"), ["model"]);
    assert.deepEqual(await frozenRootsChangedByRestore(db, ref, v1, "local"), []);
    await assert.rejects(frozenRootsChangedByRestore(db, ref, "abcdef", "workbench"), /No version/);
    const before = listSpecVersions(db, ref);
    const v1Row = before.find((v) => v.version === v1)!;
    const r = await restoreVersion(db, ref, v1.slice(0, 10), { actor: "cli", policy: "local" });
    assert.equal(r.changed, true);
    assert.equal(r.spec_version, v1);
    assert.equal(await Deno.readTextFile(join(dir, "harness.yaml")), v1Row.yaml);
    const after = listSpecVersions(db, ref);
    assert.equal(after.length, before.length + 1);
    assert.deepEqual([after[0]!.version, after[0]!.source], [v1, "restore"]);
    const log = (await Deno.readTextFile(join(dir, ".framework/construction.log"))).trim()
      .split("\n").map((l) => JSON.parse(l));
    assert.equal(log.at(-1).op, "restore");
    const timeline = versionTimeline(db, ref, v1);
    assert.equal(timeline[0]!.current, true);
    assert.equal(timeline[0]!.source, "restore");
    await assert.rejects(
      restoreVersion(db, ref, "abcdef", { actor: "cli", policy: "local" }),
      /No version/,
    );
  });

  await t.step(
    "another harness.yaml is measured on a copy; nothing of the harness changes",
    async () => {
      const text = await Deno.readTextFile(join(dir, "harness.yaml"));
      const v2Yaml = listSpecVersions(db, ref).find((v) => v.version === v2)!.yaml;
      const measured = await runEvalOnText(db, runs, dir, v2Yaml, { set: "smoke" });
      assert.equal(measured.measured_on, "copy");
      assert.equal(measured.spec_version, v2);
      assert.equal(measured.pass_rate, 1);
      assert.equal(await Deno.readTextFile(join(dir, "harness.yaml")), text);
      assert.equal((await loadSpec(dir)).version, v1);
      assert.equal(harnessStats(db, ref).runs.total, 2, "the copy's runs are not the harness's");
      assert.equal(compareVersions(db, ref, v1, v2).evals.b!.eval_id, measured.eval_id);
      // The timeline and the comparison count the same runs: the folder's and the copy's eval runs.
      const listed = versionTimeline(db, ref, v1).find((v) => v.version === v2)!;
      const compared = compareVersions(db, ref, v1, v2).metrics.b;
      assert.deepEqual([listed.runs, listed.eval_runs], [0, 4], "2 in the folder, 2 on the copy");
      assert.deepEqual([compared.runs, compared.eval_runs], [listed.runs, listed.eval_runs]);
    },
  );

  await t.step("validate reports a broken eval set", async () => {
    await Deno.writeTextFile(join(dir, "evals/broken.yaml"), "cases:\n  - id: x\n");
    const v = await validateHarness(dir);
    assert.equal(v.valid, false);
    const issue = v.issues.find((i) => i.path.startsWith("evals/broken.yaml"))!;
    assert.match(issue.message, /needs `input`/);
    assert.equal(issue.line, 2);
  });
});
