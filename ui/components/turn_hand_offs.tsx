/**
 * The hand-offs of a chat turn's runs: for each run the turn started that delegated, one line per
 * hand-off (status, cost, turns, link to the child run), the referrals, and the cost footer with the
 * delegated share. A finished run's result carries them (the copilot's `execute_run` adds the
 * referrals); a run that was still going when the card was made is read from its journal, and read
 * again as its hand-offs come and when it ends.
 *
 * @module
 */

import { type HandOffs, handOffsOfResult, type ResultHandOffs } from "../../lib/hand_offs.ts";
import type { RunHandOffs } from "../../lib/workbench/runs.ts";
import { useRunFrames } from "../live_runs.ts";
import { paths } from "../paths.ts";
import type { Route } from "../route.ts";
import { useApi, useStore } from "../store.ts";
import type { Artifact } from "../types.ts";
import { Pending } from "./empty.tsx";
import { HandOffLines } from "./delegation.tsx";

type RunContent = ResultHandOffs & { run_id?: unknown; status?: unknown; cost_usd?: number };

/**
 * The hand-offs of the runs among a message's artifacts (nothing for runs that handed nothing over).
 *
 * @param props The message's artifacts and the route links start from.
 * @returns The blocks.
 */
export function TurnHandOffs(props: { artifacts: Artifact[]; route: Route }) {
  const runs = props.artifacts.flatMap((a) => {
    if (a.kind !== "run") return [];
    try {
      const c = JSON.parse(a.content) as RunContent | null;
      return c && typeof c.run_id === "string" ? [{ runId: c.run_id, content: c }] : [];
    } catch {
      return [];
    }
  });
  return (
    <>
      {runs.map((r) =>
        r.content.status === "running"
          ? <LiveRunHandOffs key={r.runId} runId={r.runId} route={props.route} />
          : r.content.delegations?.length
          ? (
            <HandOffBlock
              key={r.runId}
              runId={r.runId}
              handOffs={handOffsOfResult(r.content)}
              cost={r.content.cost_usd ?? null}
              route={props.route}
            />
          )
          : null
      )}
    </>
  );
}

function HandOffBlock(
  props: { runId: string; handOffs: HandOffs; cost: number | null; route: Route },
) {
  return (
    <section
      class="delegation chat-handoffs"
      data-testid="chat-handoffs"
      data-run={props.runId}
      aria-label="Hand-offs to peers"
    >
      <HandOffLines
        handOffs={props.handOffs}
        totalCost={props.cost}
        route={props.route}
      />
    </section>
  );
}

/** A run started with `wait: false`: its hand-offs as its journal has them, kept current. */
function LiveRunHandOffs(props: { runId: string; route: Route }) {
  const { cache } = useStore();
  const path = paths.handOffs(props.runId);
  const h = useApi<RunHandOffs>(path);
  useRunFrames(h.data?.status === "running" ? props.runId : null, 0, (f) => {
    if (f.kind === "trace" && !f.event.type.startsWith("delegation_")) return;
    void cache.load(path, true);
  });
  if (!h.data) return h.error ? <Pending error={h.error} what="the hand-offs" /> : null;
  const x = h.data.hand_offs;
  if (!x.handoffs.length && !x.declined.length) return null;
  return (
    <HandOffBlock runId={props.runId} handOffs={x} cost={h.data.cost_usd} route={props.route} />
  );
}
