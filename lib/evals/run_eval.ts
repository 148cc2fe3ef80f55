/**
 * Running an eval set: every case is an ordinary journalled run of the harness, through the run
 * service (trust, admission, journal, hive), tagged with the eval and kept out of the harness's
 * live-run fitness unless counted as live. Each case passes when its run ends with the expected
 * status and every `expect` check accepts the output. The result is stored in the hive.
 *
 * Another `harness.yaml` (an earlier version, a proposal) is measured on a temporary copy of the
 * harness inside its state folder: nothing of the harness changes, and the copy's runs are kept
 * apart from the harness's own.
 *
 * Eval code is harness code (`eval_code.ts`): nothing runs before the folder's trust is checked,
 * and a code check gets only the permissions `harness.yaml` grants.
 *
 * @module
 */

import { readRequest, RUN_REQUEST } from "../requests.ts";
import { join } from "node:path";
import { copyTree } from "../fs/copy_tree.ts";
import { type EvalCaseResult, type EvalResult, insertEval } from "../hive/evals.ts";
import type { Hive } from "../hive/open.ts";
import { newId } from "../ids.ts";
import { harnessStateDir, specPath } from "../paths.ts";
import { protectedTraceDirs } from "../journal/trace_dir.ts";
import { within } from "../fs/safe_path.ts";
import { runLimits } from "../runner/limits.ts";
import { buildValidators } from "../runner/validators.ts";
import type { HarnessTarget, RunService } from "../runs/service.ts";
import type { EvalCase } from "../harness_spec/eval_set.ts";
import { type LoadedSpec, loadSpec, parseSpecText } from "../harness_spec/load.ts";
import { createSandboxPool } from "../tools/sandbox.ts";
import { loadEvalSet } from "../harness_spec/eval_sets.ts";
import { evalChecks, requireEvalTrust } from "./eval_code.ts";

/** How to run an evaluation. */
export interface EvalOptions {
  /** The set (may be omitted when the harness has one). */
  set?: string;
  /** Cases run at once (default 2). */
  concurrency?: number;
  /** Count the runs in the harness's live-run fitness (default false). */
  countAsLive?: boolean;
  /** Told of each case as it ends (progress). */
  onCase?: (result: EvalCaseResult, done: number, total: number) => void;
}

/** The most cases run at once. */
export const MAX_EVAL_CONCURRENCY = 16;

/**
 * Runs an eval set against a harness as it is on disk and stores the result.
 *
 * @example
 * ```ts
 * import { openHive } from "../hive/open.ts";
 * import { createRunService } from "../runs/service.ts";
 * import { trustGate } from "../trust/trust_gate.ts";
 *
 * const trusted = await trustGate(await Deno.realPath("./harnesses/hello"), { approve: true });
 * const result = await runEval(openHive(), createRunService(), trusted, { set: "smoke" });
 * console.log(result.pass_rate);
 * ```
 * @param db The hive.
 * @param runs The shell's run service.
 * @param target The harness folder, or the trust gate's proof for it.
 * @param options Set, concurrency, live counting, progress.
 * @returns The result.
 */
export async function runEval(
  db: Hive,
  runs: RunService,
  target: HarnessTarget,
  options: EvalOptions = {},
): Promise<EvalResult> {
  const loaded = await loadSpec(typeof target === "string" ? target : target.dir);
  const { name, set } = await loadEvalSet(loaded.dir, options.set);
  await requireEvalTrust(
    loaded.dir,
    loaded.spec,
    { name, cases: set.cases },
    typeof target === "string" ? undefined : target,
  );
  const result = await evaluate(runs, target, loaded, name, set.cases, options, {});
  insertEval(db, { id: loaded.spec.id, dir: loaded.dir }, result);
  return result;
}

/**
 * Measures another `harness.yaml` of a harness on one of its eval sets, on a temporary copy (in
 * `.framework/eval-copies/`), and stores the result under the harness for that version.
 *
 * @param db The hive.
 * @param runs The shell's run service.
 * @param dir The harness folder.
 * @param yaml The other `harness.yaml` text (its id must be the harness's).
 * @param options Set, concurrency, progress (copies never count as live).
 * @returns The result, `measured_on: "copy"`.
 */
export async function runEvalOnText(
  db: Hive,
  runs: RunService,
  dir: string,
  yaml: string,
  options: EvalOptions = {},
): Promise<EvalResult> {
  const original = await loadSpec(dir);
  const { name, set } = await loadEvalSet(original.dir, options.set);
  // The copy lies inside the harness folder: the harness's trust covers it, and is asked first.
  const measuredSpec = parseSpecText(yaml).spec ?? original.spec;
  await requireEvalTrust(original.dir, measuredSpec, { name, cases: set.cases });
  const copies = join(harnessStateDir(original.dir), "eval-copies");
  await Deno.mkdir(copies, { recursive: true });
  const copy = await Deno.makeTempDir({ dir: copies, prefix: "v-" });
  try {
    const traces = protectedTraceDirs(original.dir, original.spec.logging?.trace_dir, db);
    await copyTree(original.dir, copy, (e) => {
      if (e.relative === ".framework" || e.relative === ".git") return false;
      if (traces.some((t) => within(t, e.absolute))) return false;
      return e.relative !== "harness.yaml";
    });
    await Deno.writeTextFile(specPath(copy), yaml);
    const loaded = await loadSpec(copy);
    if (loaded.spec.id !== original.spec.id) {
      throw new Error(
        `The measured harness.yaml has id ${loaded.spec.id}, not ${original.spec.id}`,
      );
    }
    const result = await evaluate(runs, copy, loaded, name, set.cases, {
      ...options,
      countAsLive: false,
    }, { uncatalogued: true });
    const stored: EvalResult = { ...result, measured_on: "copy" };
    insertEval(db, { id: original.spec.id, dir: original.dir }, stored);
    return stored;
  } finally {
    // The copy's journals stay readable until the next measure of this harness.yaml is made.
    await pruneCopies(copies, copy);
  }
}

/** Keeps the newest few copies (their journals back the stored results for a while). */
async function pruneCopies(folder: string, keep: string): Promise<void> {
  const entries: { path: string; mtime: number }[] = [];
  for await (const e of Deno.readDir(folder)) {
    if (!e.isDirectory) continue;
    const path = join(folder, e.name);
    entries.push({ path, mtime: (await Deno.stat(path)).mtime?.getTime() ?? 0 });
  }
  entries.sort((a, b) => b.mtime - a.mtime);
  for (const e of entries.slice(8)) {
    if (e.path !== keep) await Deno.remove(e.path, { recursive: true }).catch(() => {});
  }
}

async function evaluate(
  runs: RunService,
  target: HarnessTarget,
  loaded: LoadedSpec,
  setName: string,
  cases: EvalCase[],
  options: EvalOptions,
  runOptions: { uncatalogued?: boolean },
): Promise<EvalResult> {
  const eval_id = newId("eval");
  const started_at = new Date().toISOString();
  const limits = runLimits(loaded.spec);
  const sandboxes = createSandboxPool(
    loaded.dir,
    protectedTraceDirs(loaded.dir, loaded.spec.logging?.trace_dir),
  );
  const results: EvalCaseResult[] = new Array(cases.length);
  let next = 0;
  let done = 0;
  const concurrency = Math.min(MAX_EVAL_CONCURRENCY, Math.max(1, options.concurrency ?? 2));
  try {
    const worker = async () => {
      while (next < cases.length) {
        const i = next++;
        results[i] = await runCase(
          runs,
          target,
          loaded,
          cases[i]!,
          sandboxes,
          limits.tool_timeout_s,
          {
            ...runOptions,
            evaluation: { eval_id, live: options.countAsLive === true },
          },
        );
        options.onCase?.(results[i]!, ++done, cases.length);
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, cases.length) }, worker));
  } finally {
    await sandboxes.close();
  }
  const passed = results.filter((r) => r.passed).length;
  const durations = results.map((r) => r.duration_ms).sort((a, b) => a - b);
  return {
    eval_id,
    harness_id: loaded.spec.id,
    set: setName,
    spec_version: loaded.version,
    started_at,
    ended_at: new Date().toISOString(),
    cases: results,
    pass_rate: results.length ? passed / results.length : 0,
    cost_usd: Math.round(results.reduce((a, r) => a + r.cost_usd, 0) * 1e9) / 1e9,
    p50_duration_ms: durations.length ? durations[Math.floor((durations.length - 1) / 2)]! : null,
  };
}

async function runCase(
  runs: RunService,
  target: HarnessTarget,
  loaded: LoadedSpec,
  c: EvalCase,
  sandboxes: ReturnType<typeof createSandboxPool>,
  toolTimeoutS: number,
  runOptions: { uncatalogued?: boolean; evaluation: { eval_id: string; live: boolean } },
): Promise<EvalCaseResult> {
  const expected = c.status ?? "success";
  let run;
  try {
    // An eval file is an edge like any request: its case is read with the run schema.
    const request = readRequest(RUN_REQUEST, {
      ...(c.input !== undefined ? { input: c.input } : {}),
      ...(c.input_file !== undefined ? { input_file: c.input_file } : {}),
    });
    run = await runs.submit(target, request, { ...runOptions, spec: loaded });
  } catch (err) {
    return {
      case_id: c.id,
      run_id: null,
      status: "error",
      passed: false,
      checks: [{ name: "run", passed: false, message: (err as Error).message }],
      cost_usd: 0,
      turns: 0,
      duration_ms: 0,
      failure_signature: null,
    };
  }
  const r = await run.result;
  const checks = [{
    name: "status",
    passed: r.status === expected,
    message: r.status === expected
      ? r.status
      : `expected ${expected}, got ${r.status}${
        r.error ? ` (${r.error.reason}: ${r.error.message})` : ""
      }`,
  }];
  const validators = buildValidators(
    { ...loaded.spec, verify: { validators: evalChecks(loaded.spec, c) } },
    sandboxes,
    toolTimeoutS,
  );
  for (const v of validators) {
    const verdict = await v.validate(r.output).catch((err) => ({
      ok: false,
      reason: `the check failed: ${(err as Error).message}`,
    }));
    checks.push({
      name: v.name,
      passed: verdict.ok,
      message: verdict.ok ? "ok" : verdict.reason ?? "failed",
    });
  }
  return {
    case_id: c.id,
    run_id: r.run_id,
    status: r.status,
    passed: checks.every((k) => k.passed),
    checks,
    cost_usd: r.cost_usd,
    turns: r.turns,
    duration_ms: r.duration_ms,
    failure_signature: r.failure_signature,
  };
}
