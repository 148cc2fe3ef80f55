/**
 * Evaluations and versions: `framework eval`'s overhead per case against a bare run of the same
 * harness, and comparing two versions (and listing the timeline) with 100 versions and 100,000 runs
 * in the hive.
 *
 * @module
 */

import { stringify } from "yaml";
import { compareVersions, versionTimeline } from "../lib/evals/compare.ts";
import { runEval } from "../lib/evals/run_eval.ts";
import { closeHives, openHive } from "../lib/hive/open.ts";
import { finishRun, insertRun } from "../lib/hive/runs.ts";
import { recordSpecVersion } from "../lib/hive/spec_versions.ts";
import { setFrameworkHome } from "../lib/paths.ts";
import { createRunService, startRun } from "../lib/runs/service.ts";
import { inTransaction } from "../lib/sqlite/database.ts";
import { fmt, measure, report } from "./measure.ts";
import { benchTempDir, runAlone } from "./temp_dirs.ts";

const CASES = 50;
const VERSIONS = 100;
const RUNS = 100_000;

/** Runs the benchmark. */
export async function run(): Promise<void> {
  const home = await benchTempDir("fw-bench-evals-");
  setFrameworkHome(home);
  const dir = `${home}/harnesses/evaluated`;
  await Deno.mkdir(`${dir}/evals`, { recursive: true });
  await Deno.writeTextFile(
    `${dir}/harness.yaml`,
    stringify({
      id: "evaluated",
      model: { provider: "scripted", scenarios: [{ match: ".", replies: [{ text: "Hi there" }] }] },
    }),
  );
  await Deno.writeTextFile(
    `${dir}/evals/bench.yaml`,
    stringify({
      cases: Array.from({ length: CASES }, (_, i) => ({
        id: `case-${i}`,
        input: `hello ${i}`,
        expect: [{ builtin: "contains", text: "Hi" }],
      })),
    }),
  );
  try {
    const db = openHive();
    const runs = createRunService();
    const bare = await measure(CASES, async () => {
      const r = await (await startRun(dir, { input: "hello" })).result;
      if (r.status !== "success") throw new Error(r.error?.message);
    }, 10);
    const evals = await measure(5, async () => {
      const r = await runEval(db, runs, dir, { set: "bench", concurrency: 1 });
      if (r.pass_rate !== 1) throw new Error("a case failed");
    }, 1);
    const perCase = evals.mean_ms / CASES;
    report(`eval of ${CASES} cases, one at a time`, {
      per_case: fmt(perCase, " ms"),
      bare_run: fmt(bare.mean_ms, " ms"),
      ratio: `${fmt(perCase / bare.mean_ms)}×`,
      overhead: fmt(perCase - bare.mean_ms, " ms/case"),
    });

    // A hive with 100 versions and 100,000 runs of one harness.
    const ref = { id: "evaluated", dir };
    const versions: string[] = [];
    for (let v = 0; v < VERSIONS; v++) {
      const version = v.toString(16).padStart(64, "0");
      versions.push(version);
      recordSpecVersion(db, {
        harness_id: ref.id,
        harness_dir: dir,
        version,
        yaml: `id: evaluated\n# version ${v}\n`,
        source: "bench",
      });
    }
    inTransaction(db, () => {
      for (let i = 0; i < RUNS; i++) {
        const run_id = `run_BENCH${String(i).padStart(21, "0")}`;
        const version = versions[i % VERSIONS]!;
        const started = new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
        insertRun(db, {
          run_id,
          harness_id: ref.id,
          harness_dir: dir,
          input: "x",
          started_at: started,
          spec_version: version,
          trace_path: `${home}/none.jsonl`,
        });
        const ok = i % 7 !== 0;
        finishRun(db, {
          run_id,
          harness_id: ref.id,
          status: ok ? "success" : "error",
          output: "",
          cost_usd: 0.001,
          turns: 2,
          started_at: started,
          ended_at: started,
          duration_ms: 100 + (i % 50),
          spec_version: version,
          failure_signature: ok ? null : `error:provider:http_${500 + (i % 3)}`,
          parent_run_id: null,
        }, { head_hash: "0".repeat(64), events: 4 });
      }
    });
    const compare = await measure(
      30,
      () => compareVersions(db, ref, versions[50]!, versions[51]!),
      3,
    );
    const timeline = await measure(10, () => versionTimeline(db, ref), 2);
    report(`compare 2 of ${VERSIONS} versions, ${RUNS.toLocaleString("en-US")} runs`, {
      compare: fmt(compare.mean_ms, " ms"),
      p99: fmt(compare.p99_ms, " ms"),
      timeline: fmt(timeline.mean_ms, " ms"),
    });
  } finally {
    closeHives();
    setFrameworkHome(undefined);
  }
}

if (import.meta.main) await runAlone(run);
