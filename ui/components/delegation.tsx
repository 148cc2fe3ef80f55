/**
 * A run's hand-offs to peers, read from its journal: one line per hand-off (peer, status, cost,
 * turns, a link to the child run — a remote peer's task on its own control plane), the peers that fitted but were not used as referrals (success
 * rate, run count and what ruled them out), and a footer with the delegated share of the cost.
 *
 * @module
 */

import { Link } from "./link.tsx";
import { StatusBadge } from "./status.tsx";
import { formatCost, formatPercent, shortId } from "../format.ts";
import { withRoute } from "../route.ts";
import { useStore } from "../store.ts";
import type { JournalEvent } from "../types.ts";

interface CandidateView {
  peer: string;
  harness_id: string | null;
  fitness: { success_rate: number | null; runs: number };
  eligible: boolean;
  reason: string | null;
}

/**
 * Where a remote (A2A) peer's task is read: its control plane's trace of the run (a framework peer's
 * task id is its run id), or nothing for a local hand-off or an address that is not http(s).
 */
function remoteTask(url: unknown, taskId: string): string | undefined {
  if (typeof url !== "string" || !/^https?:\/\//.test(url)) return undefined;
  return `${url.replace(/\/+$/, "")}/trace/${encodeURIComponent(taskId)}`;
}

/**
 * The delegation panel of a run (nothing when it handed nothing over).
 *
 * @param props The run's events and its total cost.
 * @returns The panel.
 */
export function DelegationPanel(props: { events: JournalEvent[]; totalCost: number | null }) {
  const route = useStore().route.value;
  const considered = props.events.filter((e) => e.type === "delegation_considered");
  if (!considered.length) return null;
  const started = props.events.filter((e) => e.type === "delegation_started");
  const finished = props.events.filter((e) => e.type === "delegation_finished");
  const declined = props.events.filter((e) => e.type === "delegation_declined");
  const used = new Set(started.map((e) => String(e.payload.peer)));
  const referrals = new Map<string, CandidateView>();
  for (const e of considered) {
    for (const c of (e.payload.candidates as CandidateView[] | undefined) ?? []) {
      if (!used.has(c.peer)) referrals.set(c.peer, c);
    }
  }
  const delegated = finished.reduce((n, e) => n + Number(e.payload.cost_usd ?? 0), 0);
  const total = props.totalCost ?? 0;
  return (
    <section class="delegation" data-testid="delegation" aria-label="Hand-offs to peers">
      <h3 class="detail-title">Hand-offs</h3>
      <ul class="handoffs">
        {started.map((s) => {
          const child = String(s.payload.child_run_id);
          const end = finished.find((f) => f.payload.child_run_id === child)?.payload;
          return (
            <li key={child} class="handoff" data-testid="handoff">
              <strong>{String(s.payload.peer)}</strong>{" "}
              {end ? <StatusBadge status={String(end.status)} /> : <StatusBadge status="running" />}
              {end ? ` ${formatCost(Number(end.cost_usd))} · ${end.turns} turns · ` : " "}
              {remoteTask(s.payload.url, child)
                ? (
                  <a
                    href={remoteTask(s.payload.url, child)}
                    target="_blank"
                    rel="noopener noreferrer"
                    class="mono"
                    data-testid="remote-task"
                  >
                    {shortId(child)} (A2A)
                  </a>
                )
                : (
                  <Link
                    to={withRoute(route, {
                      harness: String(s.payload.harness_id),
                      tab: "trace",
                      run: child,
                    })}
                    class="mono"
                  >
                    {shortId(child)}
                  </Link>
                )}
            </li>
          );
        })}
        {declined.map((d) => (
          <li key={d.seq} class="handoff declined">
            declined: {String(d.payload.reason)}
          </li>
        ))}
      </ul>
      {referrals.size
        ? (
          <ul class="referrals" aria-label="Referrals">
            {[...referrals.values()].map((c) => (
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
    </section>
  );
}
