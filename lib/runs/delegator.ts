/**
 * Delegation (docs/runs.md, Delegation): a run hands a task to a peer harness chosen by its measured
 * record. Each peer's fitness is `{success_rate, runs}` over its finished live runs in the hive (eval
 * runs excluded). A peer is eligible when its folder is a valid, trusted harness, the hand-off would
 * not exceed `max_depth`, the peer is not already in the chain (no cycles), and budget is left — the
 * cap is the smallest of the peer's `max_cost_usd`, the delegation `max_cost_usd` and what is left
 * of the run's own limits. The child is an ordinary journalled run of the peer, through the same run
 * service, with `parent_run_id` set and the cap as its cost limit; it works in its parent's capacity
 * slot (the parent waits on it), so a hand-off never queues behind its own ancestor. Four events
 * record it all in the parent's journal.
 *
 * @module
 */

import { resolve } from "node:path";
import type { Hive } from "../hive/open.ts";
import { openHive } from "../hive/open.ts";
import { harnessStats } from "../hive/stats.ts";
import type { DelegateOutcome, DelegateRequest, Delegator } from "../runner/delegation.ts";
import { loadSpecCached } from "../harness_spec/cache.ts";
import type { HarnessSpec } from "../harness_spec/schema.ts";
import { trustedEntryFor } from "../trust/store.ts";
import type { RunService } from "./service.ts";

/** The default `delegation.max_depth`. */
export const DEFAULT_MAX_DEPTH = 2;

/** A peer's measured record. */
export interface Fitness {
  success_rate: number | null;
  runs: number;
}

/** One peer as a hand-off saw it. */
export interface Candidate {
  peer: string;
  harness_id: string | null;
  fitness: Fitness;
  eligible: boolean;
  reason: string | null;
  /** Its folder (not journalled). */
  dir?: string;
}

/**
 * A peer's fitness from the hive: its finished live runs.
 *
 * @param db The hive.
 * @param harness The peer's id and folder.
 * @returns The success rate (null without runs) and the run count.
 */
export function peerFitness(db: Hive, harness: { id: string; dir: string }): Fitness {
  const s = harnessStats(db, harness).runs;
  return { success_rate: s.success_rate, runs: s.total };
}

/**
 * The peers of a harness, each with its fitness and whether (and why not) it may take a task now.
 *
 * @param db The hive.
 * @param spec The delegating harness's spec.
 * @param dir Its folder.
 * @param context The chain above the run and what budget it has left.
 * @returns The candidates and the cost cap.
 */
export async function considerPeers(
  db: Hive,
  spec: HarnessSpec,
  dir: string,
  context: { depth: number; chain: string[]; remaining_usd: number | undefined },
): Promise<{ candidates: Candidate[]; caps: Map<string, number | undefined> }> {
  const d = spec.delegation ?? {};
  const maxDepth = d.max_depth ?? DEFAULT_MAX_DEPTH;
  const candidates: Candidate[] = [];
  const caps = new Map<string, number | undefined>();
  for (const p of d.peers ?? []) {
    const peerDir = resolve(dir, p.harness);
    let harnessId: string | null = null;
    let fitness: Fitness = { success_rate: null, runs: 0 };
    let reason: string | null = null;
    try {
      const loaded = await loadSpecCached(peerDir);
      harnessId = loaded.spec.id;
      fitness = peerFitness(db, { id: loaded.spec.id, dir: loaded.dir });
      if (loaded.dir === dir) reason = "it is this harness itself";
      else if (!(await trustedEntryFor(loaded.dir))) {
        reason = "its folder is not trusted (framework trust)";
      } else if (context.chain.includes(loaded.spec.id)) {
        reason = `it is already in the chain (${context.chain.join(" → ")}): a cycle`;
      } else if (context.depth + 1 > maxDepth) {
        reason = `the depth would be ${context.depth + 1}, over max_depth ${maxDepth}`;
      }
    } catch (err) {
      reason = `it is not a valid harness: ${(err as Error).message.split("\n")[0]}`;
    }
    const limits = [p.max_cost_usd, d.max_cost_usd, context.remaining_usd]
      .filter((x): x is number => x !== undefined);
    const cap = limits.length ? Math.min(...limits) : undefined;
    if (!reason && cap !== undefined && cap <= 0) reason = "no budget is left for it";
    caps.set(p.name, cap);
    candidates.push({
      peer: p.name,
      harness_id: harnessId,
      fitness,
      eligible: reason === null,
      reason,
      dir: peerDir,
    });
  }
  return { candidates, caps };
}

/** The fittest of the eligible: highest success rate (none counts lowest), then most runs. */
function fittest(candidates: Candidate[]): Candidate | undefined {
  return candidates.filter((c) => c.eligible).sort((a, b) =>
    (b.fitness.success_rate ?? -1) - (a.fitness.success_rate ?? -1) ||
    b.fitness.runs - a.fitness.runs || a.peer.localeCompare(b.peer)
  )[0];
}

const journalled = (c: Candidate) => ({
  peer: c.peer,
  harness_id: c.harness_id,
  fitness: c.fitness,
  eligible: c.eligible,
  reason: c.reason,
});

/**
 * The delegator a run service gives its runs.
 *
 * @param runs The run service the children start through.
 * @returns The delegator.
 */
export function createDelegator(runs: RunService): Delegator {
  return async (request: DelegateRequest): Promise<DelegateOutcome> => {
    const db = openHive();
    const { parent } = request;
    const loaded = await loadSpecCached(parent.dir);
    const { candidates, caps } = await considerPeers(db, loaded.spec, loaded.dir, {
      depth: parent.context.depth,
      chain: parent.context.chain,
      remaining_usd: parent.remaining_usd,
    });
    const named = request.peer === undefined
      ? undefined
      : candidates.find((c) => c.peer === request.peer);
    const chosen = request.peer === undefined ? fittest(candidates) : named;
    const cap = chosen ? caps.get(chosen.peer) : undefined;
    request.emit("delegation_considered", {
      candidates: candidates.map(journalled),
      depth: parent.context.depth,
      chain: parent.context.chain,
      cost_cap_usd: cap ?? null,
    });
    const decline = (reason: string): DelegateOutcome => {
      request.emit("delegation_declined", { reason, candidates: candidates.map(journalled) });
      return { delegated: false, reason };
    };
    if (request.peer !== undefined && !named) {
      return decline(
        `No peer named ${JSON.stringify(request.peer)}; peers: ${
          candidates.map((c) => c.peer).join(", ") || "none"
        }`,
      );
    }
    if (!chosen) {
      return decline(
        "No peer is eligible: " + candidates.map((c) => `${c.peer}: ${c.reason}`).join("; "),
      );
    }
    if (!chosen.eligible) return decline(`${chosen.peer} cannot take it: ${chosen.reason}`);
    const depth = parent.context.depth + 1;
    const chain = [...parent.context.chain, chosen.harness_id!];
    const submission = await runs.submit(chosen.dir!, { input: request.task }, {
      parentRunId: parent.run_id,
      // The parent waits on this call: the child works in its slot, never queued behind it.
      inSlotOf: parent.run_id,
      delegation: { depth, chain },
      ...(cap !== undefined ? { costCapUsd: cap } : {}),
      signal: request.signal,
    });
    request.emit("delegation_started", {
      peer: chosen.peer,
      harness_id: chosen.harness_id,
      child_run_id: submission.run_id,
      fitness: chosen.fitness,
      depth,
      chain,
      cost_cap_usd: cap ?? null,
    });
    const r = await submission.result;
    request.emit("delegation_finished", {
      peer: chosen.peer,
      harness_id: chosen.harness_id,
      child_run_id: r.run_id,
      status: r.status,
      cost_usd: r.cost_usd,
      turns: r.turns,
    });
    return {
      delegated: true,
      delegation: {
        peer: chosen.peer,
        harness_id: chosen.harness_id!,
        run_id: r.run_id,
        status: r.status,
        cost_usd: r.cost_usd,
        turns: r.turns,
      },
      output: r.output,
      ...(r.error ? { error: `${r.error.reason}: ${r.error.message}` } : {}),
    };
  };
}
