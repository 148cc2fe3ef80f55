/**
 * `evolution.auto_propose`: after a run fails with a failure signature seen at least N times
 * (`evolution.auto_propose_after`, default 3) since the harness's last proposal, a proposal is drafted
 * with trigger `auto`, in the background, without delaying the run's result.
 *
 * @module
 */

import { isHarnessFailure } from "../failure_signature.ts";
import { trackBackground } from "../background.ts";
import { openHive } from "../hive/open.ts";
import type { RunResult } from "../run_types.ts";
import { failuresWithSignature } from "../hive/runs.ts";
import { harnessRef, type LoadedSpec } from "../harness_spec/load.ts";
import { proposeImprovement } from "./propose.ts";
import { lastProposalAt } from "../hive/proposals.ts";

/** Default failures of one signature before an automatic proposal. */
export const DEFAULT_AUTO_PROPOSE_AFTER = 3;

const chains = new Map<string, Promise<unknown>>();

/**
 * Checks a finished run and, when its failure has recurred enough, drafts a proposal in the background.
 * Checks of one harness run one after another, so two failures finishing together draft one proposal.
 *
 * @param loaded The run's spec snapshot.
 * @param result The run's result.
 */
export function maybeAutoPropose(loaded: LoadedSpec, result: RunResult): void {
  const evolution = loaded.spec.evolution;
  const signature = result.failure_signature;
  if (!evolution?.auto_propose || signature === null || !isHarnessFailure(signature)) return;
  const threshold = evolution.auto_propose_after ?? DEFAULT_AUTO_PROPOSE_AFTER;
  const harnessId = loaded.spec.id;
  const ref = harnessRef(loaded);
  const key = `${ref.id}\0${ref.dir}`;
  const task = (chains.get(key) ?? Promise.resolve()).then(async () => {
    const db = openHive();
    const since = lastProposalAt(db, ref) ?? "";
    const runIds = failuresWithSignature(db, ref, signature, since, 20);
    if (runIds.length < threshold) return;
    await proposeImprovement(loaded.dir, {
      trigger: "auto",
      policy: "proposal",
      objective:
        `Stop the recurring failure ${signature} (${runIds.length} runs since the last proposal)`,
      runIds,
    });
  }).catch((err) => {
    console.error(
      `warning: the automatic proposal for ${harnessId} failed: ${(err as Error).message}`,
    );
  });
  chains.set(key, task);
  task.finally(() => {
    if (chains.get(key) === task) chains.delete(key);
  });
  trackBackground(task);
}
