/**
 * The runner's side of a hand-off (the `delegate` tool): it asks the run service's delegator to hand
 * the task to a peer within what is left of the run's budget, adds what the child cost to the run's
 * cost, and answers the model with the child's outcome. Choosing, refusing and starting the child are
 * the run service's (`lib/runs/delegator.ts`).
 *
 * @module
 */

import { ToolError } from "../tools/tool.ts";
import type { Delegator } from "./delegation.ts";
import type { RunSession } from "./run_session.ts";

/**
 * Hands a task to a peer and returns what the model reads (a declined hand-off throws its reason).
 *
 * @example
 * ```ts
 * import type { Delegator } from "./delegation.ts";
 * import type { RunSession } from "./run_session.ts";
 *
 * declare const session: RunSession;
 * declare const delegator: Delegator;
 * JSON.parse(await handOff(session, delegator, "Count the orders")).status; // the child's status
 * ```
 * @param session The run handing over.
 * @param delegator The run service's delegator.
 * @param task What the peer is asked.
 * @param peer The peer asked for, or the fittest.
 * @returns The hand-off's outcome as JSON text.
 * @throws `ToolError` (`declined`) with the reason nothing was handed over.
 */
export async function handOff(
  session: RunSession,
  delegator: Delegator,
  task: string,
  peer?: string,
): Promise<string> {
  const { spec, run } = session;
  const options = run.prepared.options;
  const caps = [spec.limits?.max_cost_usd, options.costCapUsd].filter((x) => x !== undefined);
  const outcome = await delegator({
    task,
    ...(peer !== undefined ? { peer } : {}),
    parent: {
      run_id: run.run_id,
      harness_id: spec.id,
      dir: session.loaded.dir,
      context: options.delegation ?? { depth: 0, chain: [spec.id] },
      remaining_usd: caps.length ? Math.max(0, Math.min(...caps) - session.cost) : undefined,
    },
    emit: session.emit,
    signal: session.signal,
  });
  if (!outcome.delegated) throw new ToolError("declined", outcome.reason);
  const { delegation } = outcome;
  session.cost += delegation.cost_usd;
  session.delegatedCost += delegation.cost_usd;
  session.delegations.push(delegation);
  return JSON.stringify({
    peer: delegation.peer,
    status: delegation.status,
    output: outcome.output,
    ...(outcome.error ? { error: outcome.error } : {}),
    cost_usd: delegation.cost_usd,
    turns: delegation.turns,
    run_id: delegation.run_id,
  });
}
