/**
 * Runs: the harness's runs, newest first, with outcome, cost, turns, duration and time; a filter by
 * status and paging. A click (or Enter, or j/k then Enter) opens the run in Trace.
 *
 * @module
 */

import { useState } from "preact/hooks";
import { RUN_STATUSES } from "../../lib/run_types.ts";
import { Empty, Pending } from "../components/empty.tsx";
import { EvalCaseForm } from "../components/eval_case.tsx";
import { Icon } from "../components/icons.tsx";
import { Link } from "../components/link.tsx";
import { Segmented, statusChoices } from "../components/segmented.tsx";
import { RunStatusBadge } from "../components/status.tsx";
import { Time } from "../components/time.tsx";
import { formatCost, formatDuration, oneLine, shortId } from "../format.ts";
import { useShortcuts } from "../keys.ts";
import { paths, RUNS_PAGE } from "../paths.ts";
import { routeHref, withRoute } from "../route.ts";
import { useApi, useStore } from "../store.ts";
import { elapsedSince, useLiveRows, useNow } from "../live_runs.ts";
import type { RunTally } from "../../lib/run_tally.ts";
import type { HarnessDetail, RunListRow } from "../types.ts";

const FILTERS = ["", ...RUN_STATUSES, "running"];

/**
 * The Runs tab.
 *
 * @param props The harness.
 * @returns The tab.
 */
export function Runs(props: { harness: HarnessDetail }) {
  const store = useStore();
  const route = store.route.value;
  const status = route.query.status ?? "";
  const before = route.query.before;
  const runs = useApi<{ runs: RunListRow[] }>(paths.runs(props.harness.id, status, before));
  const rows = runs.data?.runs ?? [];
  const [cursor, setCursor] = useState(-1);
  // Live runs: cost and turns from their events, a ticking duration, and the list read again when
  // one ends.
  const tallies = useLiveRows(props.harness.id, rows);
  const now = useNow(rows.some((r) => r.status === "running"));
  // The run being added to an eval set (its form shows above the table).
  const [adding, setAdding] = useState<string | null>(null);

  useShortcuts({
    j: () => setCursor((c) => Math.min(rows.length - 1, c + 1)),
    k: () => setCursor((c) => Math.max(0, c - 1)),
    Enter: () => {
      const r = rows[cursor];
      if (!r) return false;
      store.navigate(withRoute(store.route.value, { tab: "trace", run: r.run_id }));
    },
  });

  return (
    <div class="runs" data-testid="runs">
      <div class="toolbar">
        <Segmented
          label="Filter by status"
          choices={statusChoices(FILTERS)}
          current={status}
          to={(f) => withRoute(route, { query: { status: f, before: "" } })}
        />
      </div>
      {adding
        ? (
          <EvalCaseForm
            key={adding}
            runId={adding}
            harnessId={props.harness.id}
            onClose={() => setAdding(null)}
          />
        )
        : null}
      {!runs.data ? <Pending error={runs.error} what="the runs" /> : rows.length
        ? (
          <>
            <RunsTable rows={rows} cursor={cursor} tallies={tallies} now={now} onAdd={setAdding} />
            <Pager rows={rows} before={before} />
          </>
        )
        : <NoRuns status={status} dir={props.harness.dir} />}
    </div>
  );
}

/** The runs of a page, one row each; the row under the cursor (j/k) and the open run marked. */
function RunsTable(props: {
  rows: RunListRow[];
  cursor: number;
  tallies: ReadonlyMap<string, RunTally>;
  now: number | null;
  onAdd: (runId: string) => void;
}) {
  return (
    <table class="table runs-table">
      <colgroup>
        <col class="c-run" />
        <col class="c-outcome" />
        <col class="c-cost" />
        <col class="c-turns" />
        <col class="c-duration" />
        <col class="c-started" />
        <col class="c-input" />
        <col class="c-actions" />
      </colgroup>
      <thead>
        <tr>
          <th>Run</th>
          <th>Outcome</th>
          <th class="num">Cost</th>
          <th class="num">Turns</th>
          <th class="num">Duration</th>
          <th>Started</th>
          <th>Input</th>
          <th class="row-actions" aria-label="Actions" />
        </tr>
      </thead>
      <tbody>
        {props.rows.map((r, i) => (
          <RunRow
            key={r.run_id}
            run={r}
            atCursor={i === props.cursor}
            tally={r.status === "running" ? props.tallies.get(r.run_id) : undefined}
            now={props.now}
            onAdd={props.onAdd}
          />
        ))}
      </tbody>
    </table>
  );
}

/**
 * One run: a click (or its id) opens it in Trace; a live run shows its cost and turns so far and a
 * ticking duration; a finished one can be added to an eval set.
 */
function RunRow(props: {
  run: RunListRow;
  atCursor: boolean;
  tally: RunTally | undefined;
  now: number | null;
  onAdd: (runId: string) => void;
}) {
  const store = useStore();
  const route = store.route.value;
  const r = props.run;
  const tally = props.tally;
  const to = withRoute(route, { tab: "trace", run: r.run_id });
  const running = r.status === "running";
  return (
    <tr
      class={`clickable ${props.atCursor ? "cursor" : ""} ${
        r.run_id === route.run ? "selected" : ""
      }`}
      data-run-id={r.run_id}
      onClick={(ev) => {
        if ((ev.target as HTMLElement).closest("a, button")) return;
        store.navigate(to);
      }}
    >
      <td>
        <a
          class="mono"
          href={routeHref(to)}
          title={r.run_id}
          onClick={(ev) => {
            if (ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey) return;
            ev.preventDefault();
            store.navigate(to);
          }}
        >
          {shortId(r.run_id)}
        </a>
      </td>
      <td>
        <RunOutcome run={r} />
      </td>
      <td class="num">{formatCost(tally?.cost_usd ?? r.cost_usd)}</td>
      <td class="num">{tally?.turns ?? r.turns}</td>
      <td class="num">
        {formatDuration(running ? elapsedSince(r.started_at, props.now) : r.duration_ms)}
      </td>
      <td>
        <Time iso={r.started_at} />
      </td>
      <td class="excerpt" title={r.input_excerpt}>
        {oneLine(r.input_excerpt, 60)}
      </td>
      <td class="row-actions">
        {r.status === "running" ? null : (
          <button
            type="button"
            class="icon-button"
            title="Add this run to an eval set"
            data-testid="add-to-eval"
            onClick={() => props.onAdd(r.run_id)}
          >
            <Icon name="plus" label="Add this run to an eval set" />
          </button>
        )}
      </td>
    </tr>
  );
}

/** A run's outcome; a live run pulses and shows the mode (playbook) it is in. */
function RunOutcome(props: { run: RunListRow }) {
  const r = props.run;
  if (!r.live_state) return <RunStatusBadge status={r.status} reason={r.reason} />;
  return (
    <span class="live-run" data-testid="live-run">
      <span class="pulse" aria-hidden="true" />
      <RunStatusBadge status={r.status} reason={r.reason} />
      {r.live_state.playbook
        ? (
          <span class="live-mode muted small" title={`Mode: ${r.live_state.playbook}`}>
            {r.live_state.playbook}
          </span>
        )
        : null}
    </span>
  );
}

/** Back to the newest runs, and on to older ones while a page is full. */
function Pager(props: { rows: RunListRow[]; before: string | undefined }) {
  const route = useStore().route.value;
  return (
    <div class="pager">
      {props.before
        ? <Link to={withRoute(route, { query: { before: "" } })}>← Newest</Link>
        : <span />}
      {props.rows.length === RUNS_PAGE
        ? (
          <Link to={withRoute(route, { query: { before: props.rows.at(-1)!.run_id } })}>
            Older →
          </Link>
        )
        : <span class="muted">{props.before ? "No older runs" : ""}</span>}
    </div>
  );
}

/** No runs: under a filter, a way back to all runs; else how to start one. */
function NoRuns(props: { status: string; dir: string }) {
  const route = useStore().route.value;
  const status = props.status;
  return (
    <Empty title={status ? `No ${status.replace(/_/g, " ")} runs` : "No runs yet"}>
      {status
        ? (
          <p>
            <Link to={withRoute(route, { query: { status: "", before: "" } })}>
              Show all runs
            </Link>
          </p>
        )
        : (
          <p>
            Ask the copilot to run this harness, or run{" "}
            <code>framework run {props.dir} --input "…"</code>{" "}
            in a terminal. Runs appear here as they start.
          </p>
        )}
    </Empty>
  );
}
