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
import { recordRemoteHandoff, remoteFitness } from "../hive/remote_handoffs.ts";
import { harnessStats } from "../hive/stats.ts";
import type { DelegateOutcome, DelegateRequest, Delegator } from "../runner/delegation.ts";
import { loadSpecCached } from "../harness_spec/cache.ts";
import { type HarnessSpec, isRemotePeer, type RemotePeer } from "../harness_spec/schema.ts";
import { sendToPeer } from "../tools/a2a_peer.ts";
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
  /** A remote peer's URL (its name too). */
  url?: string;
  /** A remote peer's token variable (its name only; not journalled). */
  token_env?: string;
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
    const limits = [p.max_cost_usd, d.max_cost_usd, context.remaining_usd]
      .filter((x): x is number => x !== undefined);
    const cap = limits.length ? Math.min(...limits) : undefined;
    const depthOver = context.depth + 1 > maxDepth
      ? `the depth would be ${context.depth + 1}, over max_depth ${maxDepth}`
      : null;
    if (isRemotePeer(p)) {
      const c = remoteCandidate(db, p, depthOver, cap);
      caps.set(c.peer, cap);
      candidates.push(c);
      continue;
    }
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
      } else if (depthOver) {
        reason = depthOver;
      }
    } catch (err) {
      reason = `it is not a valid harness: ${(err as Error).message.split("\n")[0]}`;
    }
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

/**
 * A remote peer as a hand-off sees it: named by its URL, its fitness from this hive's record of
 * hand-offs to it; it may not take a task without its token variable set, past `max_depth`, or
 * without budget.
 */
function remoteCandidate(
  db: Hive,
  p: RemotePeer,
  depthOver: string | null,
  cap: number | undefined,
): Candidate {
  const reason = !Deno.env.get(p.token_env)
    ? `its token variable ${p.token_env} is not set in this process's environment`
    : depthOver ?? (cap !== undefined && cap <= 0 ? "no budget is left for it" : null);
  return {
    peer: p.a2a,
    harness_id: null,
    fitness: remoteFitness(db, p.a2a),
    eligible: reason === null,
    reason,
    url: p.a2a,
    token_env: p.token_env,
  };
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
  ...(c.url ? { url: c.url } : {}),
  fitness: c.fitness,
  eligible: c.eligible,
  reason: c.reason,
});

/** What a hand-off to a remote peer needs from the delegator. */
interface RemoteHandOff {
  db: Hive;
  request: DelegateRequest;
  chosen: Candidate & { url: string; token_env: string };
  cap: number | undefined;
  depth: number;
  chain: string[];
  decline: (reason: string) => DelegateOutcome;
}

/**
 * Hands a task to a remote peer over A2A: the task is sent with the cap asked of the peer, the
 * remote task id is the child reference, and the cost counted is what the peer reports — or, when it
 * reports none, the whole cap (a hand-off whose cost is unknown has spent what it was allowed). A
 * reported cost over the cap halts the hand-off (`guardrail_halt`). Each hand-off is recorded in the
 * hive for the peer's fitness; one that made no task is declined.
 */
async function handToRemote(h: RemoteHandOff): Promise<DelegateOutcome> {
  const { db, request, chosen, cap } = h;
  const url = chosen.url;
  let taskId: string | null = null;
  let agent: string | null = null;
  const record = (status: string, cost: number) =>
    recordRemoteHandoff(db, {
      url,
      parent_run_id: request.parent.run_id,
      task_id: taskId,
      status,
      cost_usd: cost,
    });
  let outcome;
  try {
    outcome = await sendToPeer({
      url,
      token: Deno.env.get(chosen.token_env) ?? "",
      task: request.task,
      capUsd: cap,
      signal: request.signal,
      onTask: (id, name) => {
        taskId = id;
        agent = name;
        request.emit("delegation_started", {
          peer: url,
          url,
          harness_id: name,
          child_run_id: id,
          fitness: chosen.fitness,
          depth: h.depth,
          chain: h.chain,
          cost_cap_usd: cap ?? null,
        });
      },
    });
  } catch (err) {
    const message = (err as Error).message.split("\n")[0];
    if (taskId === null) {
      record("error", 0);
      return h.decline(`The A2A peer ${url} could not take it: ${message}`);
    }
    outcome = {
      task_id: taskId,
      agent: agent ?? "",
      status: "error" as const,
      state: "unknown",
      output: "",
      reported_cost_usd: undefined,
      turns: 0,
      error: `the remote task was lost: ${message}`,
    };
  }
  const reported = outcome.reported_cost_usd;
  const cost = reported ?? cap ?? 0;
  const over = reported !== undefined && cap !== undefined && reported > cap;
  const status = over ? "guardrail_halt" : outcome.status;
  const error = over
    ? `the peer reported $${reported}, over the hand-off's cap of $${cap}`
    : outcome.error;
  record(status, cost);
  request.emit("delegation_finished", {
    peer: url,
    url,
    harness_id: outcome.agent,
    child_run_id: outcome.task_id,
    status,
    state: outcome.state,
    cost_usd: cost,
    cost_reported: reported !== undefined,
    turns: outcome.turns,
  });
  return {
    delegated: true,
    delegation: {
      peer: url,
      harness_id: outcome.agent,
      run_id: outcome.task_id,
      status,
      cost_usd: cost,
      turns: outcome.turns,
      url,
    },
    output: outcome.output,
    ...(error ? { error } : {}),
  };
}

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
    if (chosen.url !== undefined && chosen.token_env !== undefined) {
      const chain = [...parent.context.chain, chosen.url];
      const remote = { ...chosen, url: chosen.url, token_env: chosen.token_env };
      return await handToRemote({ db, request, chosen: remote, cap, depth, chain, decline });
    }
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
