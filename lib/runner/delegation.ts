/**
 * What a run knows of delegation: where it stands in a chain of hand-offs (its depth and the harnesses
 * above it), and the function the run service gives it to hand a task to a peer. The runner only
 * calls it from the `delegate` tool and adds what the child cost; choosing, refusing and starting the
 * child are the run service's (`lib/runs/delegator.ts`).
 *
 * @module
 */

import type { Delegation } from "../run_types.ts";

/** A run's place in a chain of hand-offs: the root run has depth 0 and a chain of its own id. */
export interface DelegationContext {
  depth: number;
  /** Harness ids from the root to this run. */
  chain: string[];
}

/** What the `delegate` tool asks. */
export interface DelegateRequest {
  task: string;
  peer?: string;
  /** The run handing over. */
  parent: {
    run_id: string;
    harness_id: string;
    dir: string;
    context: DelegationContext;
    /** What is left of its `limits.max_cost_usd` (undefined without a limit). */
    remaining_usd: number | undefined;
  };
  /** Journals an event in the parent's journal. */
  emit: (type: string, payload: Record<string, unknown>) => void;
  signal: AbortSignal;
}

/** What a hand-off gave: the child's result, or why nothing was handed over. */
export type DelegateOutcome =
  | { delegated: true; delegation: Delegation; output: string; error?: string }
  | { delegated: false; reason: string };

/** Hands a task to a peer (the run service's). */
export type Delegator = (request: DelegateRequest) => Promise<DelegateOutcome>;
