/**
 * A run's hand-offs to peers read from its journal's `delegation_*` events: one line per hand-off
 * (peer, status, cost, turns, child run), the hand-offs declined and why, the peers that fitted but
 * were not used (referrals, with their measured record and what ruled them out), and the delegated
 * share of the cost. The Trace tab, the chat and the copilot's run tools all read hand-offs through
 * this one function.
 *
 * @module
 */

/** A peer's measured record: its success rate over its finished runs (null without any). */
export interface PeerFitness {
  success_rate: number | null;
  runs: number;
}

/** One hand-off: the child run, and how it ended once it has. */
export interface HandOff {
  peer: string;
  harness_id: string | null;
  run_id: string;
  /**
   * Where a remote (A2A) peer's task is read: its control plane's trace of the task (a framework
   * peer's task id is its run id); null for a local hand-off.
   */
  remote_task_url: string | null;
  /** The child's status; null while it runs. */
  status: string | null;
  cost_usd: number | null;
  turns: number | null;
}

/** A remote peer's task page, or null for a local hand-off or an address that is not http(s). */
function remoteTaskUrl(url: unknown, taskId: string): string | null {
  if (typeof url !== "string" || !/^https?:\/\//.test(url)) return null;
  return `${url.replace(/\/+$/, "")}/trace/${encodeURIComponent(taskId)}`;
}

/** A peer that fitted but was not used. */
export interface Referral {
  peer: string;
  harness_id: string | null;
  fitness: PeerFitness;
  /** What ruled it out (null: it was eligible, a fitter peer was chosen). */
  reason: string | null;
}

/** What {@link handOffsOf} reads from a run. */
export interface HandOffs {
  handoffs: HandOff[];
  /** Hand-offs refused, with the reason. */
  declined: string[];
  referrals: Referral[];
  /** The finished hand-offs' cost, USD. */
  delegated_cost_usd: number;
}

/** An event as far as {@link handOffsOf} reads it. */
export type HandOffEvent = { type: string; payload: Record<string, unknown> };

/**
 * The hand-offs of a run, from its events (any prefix of its journal: a hand-off still going has no
 * status yet). Nothing when the run considered none.
 *
 * @example
 * ```ts
 * const h = handOffsOf([
 *   { type: "delegation_considered", payload: { candidates: [
 *     { peer: "b", harness_id: "b", fitness: { success_rate: 1, runs: 3 }, eligible: true, reason: null },
 *     { peer: "c", harness_id: "c", fitness: { success_rate: 0, runs: 2 }, eligible: true, reason: null },
 *   ] } },
 *   { type: "delegation_started", payload: { peer: "b", harness_id: "b", child_run_id: "r2" } },
 *   { type: "delegation_finished", payload: { peer: "b", child_run_id: "r2", status: "success", cost_usd: 0.001, turns: 1 } },
 * ]);
 * h.referrals[0]!.peer; // "c"
 * ```
 * @param events The run's events.
 * @returns The hand-offs, declines, referrals and delegated cost.
 */
export function handOffsOf(events: readonly HandOffEvent[]): HandOffs {
  const handoffs = new Map<string, HandOff>();
  const declined: string[] = [];
  const candidates = new Map<string, Referral>();
  let cost = 0;
  for (const e of events) {
    const p = e.payload;
    if (e.type === "delegation_considered") {
      for (const c of (p.candidates as Record<string, unknown>[] | undefined) ?? []) {
        const fitness = c.fitness as Partial<PeerFitness> | undefined;
        candidates.set(String(c.peer), {
          peer: String(c.peer),
          harness_id: typeof c.harness_id === "string" ? c.harness_id : null,
          fitness: {
            success_rate: typeof fitness?.success_rate === "number" ? fitness.success_rate : null,
            runs: typeof fitness?.runs === "number" ? fitness.runs : 0,
          },
          reason: typeof c.reason === "string" && c.reason ? c.reason : null,
        });
      }
    } else if (e.type === "delegation_started") {
      const runId = String(p.child_run_id);
      handoffs.set(runId, {
        peer: String(p.peer),
        harness_id: typeof p.harness_id === "string" ? p.harness_id : null,
        run_id: runId,
        remote_task_url: remoteTaskUrl(p.url, runId),
        status: null,
        cost_usd: null,
        turns: null,
      });
    } else if (e.type === "delegation_finished") {
      const h = handoffs.get(String(p.child_run_id));
      const c = typeof p.cost_usd === "number" ? p.cost_usd : 0;
      cost += c;
      if (h) {
        h.status = String(p.status);
        h.cost_usd = c;
        h.turns = typeof p.turns === "number" ? p.turns : null;
      }
    } else if (e.type === "delegation_declined") {
      declined.push(String(p.reason ?? "no reason given"));
    }
  }
  const used = new Set([...handoffs.values()].map((h) => h.peer));
  return {
    handoffs: [...handoffs.values()],
    declined,
    referrals: [...candidates.values()].filter((c) => !used.has(c.peer)),
    delegated_cost_usd: Math.round(cost * 1e9) / 1e9,
  };
}

/**
 * Whether a run considered a hand-off at all (then its hand-offs are worth showing).
 *
 * @param h The run's hand-offs.
 * @returns True when there is a hand-off, a decline or a referral.
 */
export function anyHandOff(h: HandOffs): boolean {
  return h.handoffs.length + h.declined.length + h.referrals.length > 0;
}

/** What a run's result says of its hand-offs (the copilot's `execute_run` adds the referrals). */
export interface ResultHandOffs {
  delegations?: {
    peer: string;
    harness_id: string;
    run_id: string;
    status: string;
    cost_usd: number;
    turns: number;
    /** A remote (A2A) peer's URL; `run_id` is then its task id. */
    url?: string;
  }[];
  delegated_cost_usd?: number;
  referrals?: Referral[];
  declined?: string[];
}

/**
 * The hand-offs a finished run's result carries, in the shape {@link handOffsOf} reads from a
 * journal (a chat turn shows them without reading the run's journal again).
 *
 * @param r The result (with `referrals` and `declined` when the copilot added them).
 * @returns The hand-offs.
 */
export function handOffsOfResult(r: ResultHandOffs): HandOffs {
  return {
    handoffs: (r.delegations ?? []).map((d) => ({
      peer: d.peer,
      harness_id: d.harness_id,
      run_id: d.run_id,
      remote_task_url: remoteTaskUrl(d.url, d.run_id),
      status: d.status,
      cost_usd: d.cost_usd,
      turns: d.turns,
    })),
    declined: r.declined ?? [],
    referrals: r.referrals ?? [],
    delegated_cost_usd: r.delegated_cost_usd ?? 0,
  };
}
