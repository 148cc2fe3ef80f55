/**
 * Runs: the harness's runs, newest first, with outcome, cost, turns, duration and time; a filter by
 * status and paging. A click (or Enter, or j/k then Enter) opens the run in Trace. The runs of a
 * thread on a page are grouped under one thread row (its id, its turns, its last update and a way
 * to the conversation), placed where its newest run would be; a long thread shows its newest few
 * runs and the rest on demand. With `?thread=` the tab shows that thread's conversation.
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
import { ThreadConversation } from "./thread.tsx";
import type { RunTally } from "../../lib/run_tally.ts";
import type { HarnessDetail, RunListRow, RunsPage, ThreadRecord } from "../types.ts";

const FILTERS = ["", ...RUN_STATUSES, "running"];

/** How many runs of a thread a page shows before "Show … more". */
const THREAD_RUNS_SHOWN = 3;

/** What the table shows, in order: a run of no thread, or a thread with its runs on this page. */
type Block =
  | { kind: "run"; run: RunListRow }
  | { kind: "thread"; id: string; thread: ThreadRecord | undefined; runs: RunListRow[] };

/**
 * A page's runs in blocks: each thread's runs together, where its newest run is.
 *
 * @param rows The page's runs, newest first.
 * @param threads Their threads (a deleted one is missing).
 * @returns The blocks.
 */
function blocksOf(rows: RunListRow[], threads: ThreadRecord[]): Block[] {
  const known = new Map(threads.map((t) => [t.thread_id, t]));
  const groups = new Map<string, Extract<Block, { kind: "thread" }>>();
  const out: Block[] = [];
  for (const run of rows) {
    if (!run.thread_id) {
      out.push({ kind: "run", run });
      continue;
    }
    let group = groups.get(run.thread_id);
    if (!group) {
      group = { kind: "thread", id: run.thread_id, thread: known.get(run.thread_id), runs: [] };
      groups.set(run.thread_id, group);
      out.push(group);
    }
    group.runs.push(run);
  }
  return out;
}

/** The runs of a block the table shows (a thread's newest few, unless opened out). */
function shownRuns(block: Block, open: ReadonlySet<string>): RunListRow[] {
  if (block.kind === "run") return [block.run];
  return open.has(block.id) ? block.runs : block.runs.slice(0, THREAD_RUNS_SHOWN);
}

/**
 * The Runs tab.
 *
 * @param props The harness.
 * @returns The tab.
 */
export function Runs(props: { harness: HarnessDetail }) {
  const thread = useStore().route.value.query.thread;
  return thread
    ? <ThreadConversation key={thread} harness={props.harness} threadId={thread} />
    : <RunList harness={props.harness} />;
}

/** The list of runs, a page at a time. */
function RunList(props: { harness: HarnessDetail }) {
  const store = useStore();
  const route = store.route.value;
  const status = route.query.status ?? "";
  const before = route.query.before;
  const runs = useApi<RunsPage>(paths.runs(props.harness.id, status, before));
  const rows = runs.data?.runs ?? [];
  const blocks = blocksOf(rows, runs.data?.threads ?? []);
  // The threads opened out past their newest few runs.
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  // The runs as the table shows them, in order (what j/k move through).
  const shown = blocks.flatMap((b) => shownRuns(b, open));
  const [cursor, setCursor] = useState(-1);
  // Live runs: cost and turns from their events, a ticking duration, and the list read again when
  // one ends.
  const tallies = useLiveRows(props.harness.id, rows);
  const now = useNow(rows.some((r) => r.status === "running"));
  // The run being added to an eval set (its form shows above the table).
  const [adding, setAdding] = useState<string | null>(null);

  useShortcuts({
    j: () => setCursor((c) => Math.min(shown.length - 1, c + 1)),
    k: () => setCursor((c) => Math.max(0, c - 1)),
    Enter: () => {
      const r = shown[cursor];
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
            <table class="table runs-table">
              <RunColumns />
              <tbody>
                {blocks.map((b) => (
                  <RunBlock
                    key={b.kind === "run" ? b.run.run_id : b.id}
                    block={b}
                    open={open}
                    onOpen={(id, on) =>
                      setOpen((o) => {
                        const next = new Set(o);
                        if (on) next.add(id);
                        else next.delete(id);
                        return next;
                      })}
                    cursorRun={shown[cursor]?.run_id}
                    tallies={tallies}
                    now={now}
                    onAdd={setAdding}
                  />
                ))}
              </tbody>
            </table>
            <Pager rows={rows} before={before} />
          </>
        )
        : <NoRuns status={status} dir={props.harness.dir} />}
    </div>
  );
}

/** The table's columns and their headings. */
function RunColumns() {
  return (
    <>
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
    </>
  );
}

/** A block's rows: a run; or a thread's row, its runs shown, and the way to the others. */
function RunBlock(props: {
  block: Block;
  open: ReadonlySet<string>;
  onOpen: (threadId: string, open: boolean) => void;
  cursorRun: string | undefined;
  tallies: ReadonlyMap<string, RunTally>;
  now: number | null;
  onAdd: (runId: string) => void;
}) {
  const b = props.block;
  const rows = shownRuns(b, props.open).map((r) => (
    <RunRow
      key={r.run_id}
      run={r}
      nested={b.kind === "thread"}
      atCursor={r.run_id === props.cursorRun}
      tally={r.status === "running" ? props.tallies.get(r.run_id) : undefined}
      now={props.now}
      onAdd={props.onAdd}
    />
  ));
  if (b.kind === "run") return <>{rows}</>;
  const hidden = b.runs.length - THREAD_RUNS_SHOWN;
  const opened = props.open.has(b.id);
  return (
    <>
      <ThreadRow block={b} />
      {rows}
      {hidden > 0
        ? (
          <tr class="thread-more">
            <td colSpan={8}>
              <button
                type="button"
                class="link-button"
                aria-expanded={opened}
                onClick={() => props.onOpen(b.id, !opened)}
              >
                {opened
                  ? "Show fewer runs of this thread"
                  : `Show ${hidden} more ${hidden === 1 ? "run" : "runs"} of this thread`}
              </button>
            </td>
          </tr>
        )
        : null}
    </>
  );
}

/**
 * A thread's row: its id, how many turns it has (and how many of them are on this page), when it
 * was last updated, whether a turn is going, and the way to its conversation.
 */
function ThreadRow(props: { block: Extract<Block, { kind: "thread" }> }) {
  const route = useStore().route.value;
  const { id, thread, runs } = props.block;
  const to = withRoute(route, { query: { thread: id } });
  return (
    <tr class="thread-row" data-thread-id={id} data-testid="thread-row">
      <td>
        {thread
          ? <Link class="mono" to={to} title={id}>{shortId(id)}</Link>
          : <span class="mono muted" title={id}>{shortId(id)}</span>}
      </td>
      <td colSpan={7}>
        <span class="thread-line">
          <span class="badge badge-info">thread</span>
          {thread
            ? (
              <>
                <span data-testid="thread-turns">
                  {thread.turns} {thread.turns === 1 ? "turn" : "turns"}
                  {runs.length < thread.turns ? `, ${runs.length} on this page` : ""}
                </span>
                <span class="muted">
                  updated <Time iso={thread.updated_at} />
                </span>
                {thread.live_run_id
                  ? (
                    <span class="live-run">
                      <span class="pulse" aria-hidden="true" /> a turn is going
                    </span>
                  )
                  : null}
                <Link to={to} data-testid="view-conversation">View conversation →</Link>
              </>
            )
            : <span class="muted">deleted; its runs stay</span>}
        </span>
      </td>
    </tr>
  );
}

/**
 * One run: a click (or its id) opens it in Trace; a live run shows its cost and turns so far and a
 * ticking duration; a finished one can be added to an eval set.
 */
function RunRow(props: {
  run: RunListRow;
  /** A run of a thread, under its thread's row. */
  nested: boolean;
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
      class={`clickable ${props.nested ? "thread-run" : ""} ${props.atCursor ? "cursor" : ""} ${
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
