/**
 * A run's hand-offs to peers (read by `lib/hand_offs.ts` from its journal, or carried by a chat
 * turn's run): one line per hand-off (peer, status, cost, turns, a link to the child run — a remote
 * peer's task on its own control plane), the peers that fitted but were not used as referrals
 * (success rate, run count and what ruled them out), and a footer with the delegated share of the
 * cost. Trace and the chat show the same lines.
 *
 * @module
 */

import { anyHandOff, type HandOffs, handOffsOf } from "../../lib/hand_offs.ts";
import { Link } from "./link.tsx";
import { StatusBadge } from "./status.tsx";
import { formatCost, formatPercent, shortId } from "../format.ts";
import { type Route, withRoute } from "../route.ts";
import { useStore } from "../store.ts";
import type { JournalEvent } from "../types.ts";

/**
 * The delegation panel of a run in Trace (nothing when it handed nothing over).
 *
 * @param props The run's events and its total cost.
 * @returns The panel.
 */
export function DelegationPanel(props: { events: JournalEvent[]; totalCost: number | null }) {
  const route = useStore().route.value;
  const h = handOffsOf(props.events);
  if (!anyHandOff(h)) return null;
  return (
    <section class="delegation" data-testid="delegation" aria-label="Hand-offs to peers">
      <h3 class="detail-title">Hand-offs</h3>
      <HandOffLines handOffs={h} totalCost={props.totalCost} route={route} />
    </section>
  );
}

/**
 * The lines of a run's hand-offs, its referrals and the cost footer.
 *
 * @param props The hand-offs, the run's total cost (the children's included), and the route the
 *   links start from.
 * @returns The lines.
 */
export function HandOffLines(
  props: { handOffs: HandOffs; totalCost: number | null; route: Route },
) {
  const { handOffs: h, route } = props;
  const base: Route = { ...route, page: "workbench" };
  const total = props.totalCost ?? 0;
  const delegated = h.delegated_cost_usd;
  return (
    <>
      <ul class="handoffs">
        {h.handoffs.map((x) => (
          <li key={x.run_id} class="handoff" data-testid="handoff">
            <strong>{x.peer}</strong> <StatusBadge status={x.status ?? "running"} />
            {x.status !== null ? ` ${formatCost(x.cost_usd)} · ${x.turns ?? 0} turns · ` : " "}
            {x.remote_task_url
              ? (
                <a
                  href={x.remote_task_url}
                  target="_blank"
                  rel="noopener noreferrer"
                  class="mono"
                  data-testid="remote-task"
                >
                  {shortId(x.run_id)} (A2A)
                </a>
              )
              : (
                <Link
                  to={withRoute(base, {
                    harness: x.harness_id ?? route.harness,
                    tab: "trace",
                    run: x.run_id,
                  })}
                  class="mono"
                >
                  {shortId(x.run_id)}
                </Link>
              )}
          </li>
        ))}
        {h.declined.map((reason, i) => (
          <li key={`d${i}`} class="handoff declined" data-testid="handoff-declined">
            declined: {reason}
          </li>
        ))}
      </ul>
      {h.referrals.length
        ? (
          <ul class="referrals" aria-label="Referrals">
            {h.referrals.map((c) => (
              <li key={c.peer} data-testid="referral">
                <span class="muted small">referral</span> <strong>{c.peer}</strong>{" "}
                {formatPercent(c.fitness.success_rate)} over {c.fitness.runs} runs ·{" "}
                {c.reason ?? "eligible, a fitter peer was chosen"}
              </li>
            ))}
          </ul>
        )
        : null}
      <p class="cost-footer muted small" data-testid="cost-footer">
        Delegated {formatCost(delegated)} of {formatCost(total)}
        {total > 0 ? ` (${formatPercent(delegated / total)})` : ""}
      </p>
    </>
  );
}
