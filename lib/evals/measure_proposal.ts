/**
 * A proposal measured before it is applied: its pending YAML changes are spliced into the current
 * `harness.yaml` in memory, the result is evaluated on a temporary copy (nothing is applied), and set
 * beside the current version's evaluation on the same set, case by case.
 *
 * @module
 */

import { applyYamlChanges } from "../evolve/decide.ts";
import { type EvalResult, latestEval } from "../hive/evals.ts";
import type { Hive } from "../hive/open.ts";
import { getProposal } from "../hive/proposals.ts";
import type { RunService } from "../runs/service.ts";
import { loadSpec, parseSpecText } from "../harness_spec/load.ts";
import { badInput } from "../errors.ts";
import { caseChanges, type Comparison } from "./compare.ts";
import { type EvalOptions, runEval, runEvalOnText } from "./run_eval.ts";

/** A proposal's measurement. */
export interface ProposalMeasure {
  proposal_id: string;
  set: string;
  /** The current version's newest evaluation on the set (made now when there was none). */
  baseline: EvalResult;
  /** The proposal's YAML, evaluated on a copy. */
  measured: EvalResult;
  cases: Comparison["evals"]["cases"];
  delta: { pass_rate: number; cost_usd: number };
}

/**
 * Measures a proposal's YAML changes on an eval set.
 *
 * @example
 * ```ts
 * import { openHive } from "../hive/open.ts";
 * import { createRunService } from "../runs/service.ts";
 *
 * const m = await measureProposal(openHive(), createRunService(), "./h", "prop_01…", {
 *   set: "smoke",
 * });
 * m.delta.pass_rate; // +0.5: the proposal fixes half the set
 * ```
 * @param db The hive.
 * @param runs The shell's run service.
 * @param dir The harness folder.
 * @param proposalId The proposal.
 * @param options The set, concurrency, progress.
 * @returns The baseline, the measurement and the case changes.
 * @throws `bad_input` when the proposal has no pending YAML change.
 */
export async function measureProposal(
  db: Hive,
  runs: RunService,
  dir: string,
  proposalId: string,
  options: EvalOptions = {},
): Promise<ProposalMeasure> {
  const loaded = await loadSpec(dir);
  const ref = { id: loaded.spec.id, dir: loaded.dir };
  const proposal = getProposal(db, ref, proposalId);
  const pending = proposal.yaml_changes.filter((c) => c.status === "pending");
  if (!pending.length) {
    throw badInput(
      `Proposal ${proposalId} has no pending YAML change to measure (code changes are measured once applied)`,
    );
  }
  const { text } = applyYamlChanges(loaded.text, parseSpecText(loaded.text).value, pending);
  const measured = await runEvalOnText(db, runs, loaded.dir, text, options);
  const baseline = latestEval(db, ref, loaded.version, measured.set) ??
    await runEval(db, runs, loaded.dir, { ...options, set: measured.set });
  return {
    proposal_id: proposalId,
    set: measured.set,
    baseline,
    measured,
    cases: caseChanges(baseline, measured),
    delta: {
      pass_rate: Math.round((measured.pass_rate - baseline.pass_rate) * 1e9) / 1e9,
      cost_usd: Math.round((measured.cost_usd - baseline.cost_usd) * 1e9) / 1e9,
    },
  };
}
