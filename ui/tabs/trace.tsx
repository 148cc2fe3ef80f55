/**
 * Trace: a run's journal in order, with the hash-chain integrity result up front, filters by event
 * type, per-event timing, each event's payload as collapsible JSON, and the folded context the model
 * saw at any model call. Only the rows in view are rendered, so a run of 10,000 events stays quick;
 * a live run's events arrive as they are written.
 *
 * @module
 */

import { useEffect, useMemo, useState } from "preact/hooks";
import { useScrollView } from "../scroll_view.ts";
import { runOutcome } from "../../lib/run_types.ts";
import { callApi } from "../api.ts";
import { Empty, Pending } from "../components/empty.tsx";
import { Icon } from "../components/icons.tsx";
import { JsonView } from "../components/json_view.tsx";
import { Link } from "../components/link.tsx";
import { RunStatusBadge } from "../components/status.tsx";
import { Time } from "../components/time.tsx";
import { formatCost, formatDuration, formatUtc, oneLine, shortId } from "../format.ts";
import { useShortcuts } from "../keys.ts";
import { paths, TRACE_PAGE, TRACE_PREVIEW } from "../paths.ts";
import { withRoute } from "../route.ts";
import { useApi, useStore } from "../store.ts";
import { elapsedSince, useLiveRows, useNow, useRunFrames } from "../live_runs.ts";
import { runTally } from "../../lib/run_tally.ts";
import { RunSwitches, SteerBox } from "../components/live_controls.tsx";
import { RunPanel } from "../components/run_panel.tsx";
import {
  type AppendedMessage,
  FORK_NAME_ID,
  ForkForm,
  LineagePanel,
} from "../components/forks.tsx";
import { EvalCaseForm } from "../components/eval_case.tsx";
import { DelegationPanel } from "../components/delegation.tsx";
import { Waterfall } from "../components/waterfall.tsx";
import { ApprovalCard } from "../components/approval_card.tsx";
import {
  APPROVAL_TYPES,
  approvalsChanged,
  isApprovalEvent,
  openRequests,
  usePendingApprovals,
} from "../approvals.ts";
import type {
  FoldedContext,
  HarnessDetail,
  JournalEvent,
  LiveView,
  RunRow,
  TraceView,
} from "../types.ts";

/** Height of one row of the event list, in pixels (the CSS uses the same). */
export const ROW_HEIGHT = 30;
const OVERSCAN = 12;
/** Rows rendered before the list is measured (the server's render). */
const FIRST_ROWS = 40;

/**
 * The Trace tab.
 *
 * @param props The harness.
 * @returns The tab.
 */
export function Trace(props: { harness: HarnessDetail }) {
  const route = useStore().route.value;
  if (!route.run) {
    return (
      <>
        <RunPanel harness={props.harness} />
        <RunPicker harness={props.harness} />
      </>
    );
  }
  return <RunTrace key={route.run} runId={route.run} />;
}

/** The journal events of applied controls: the filters' "Controls" group. */
export const CONTROL_TYPES = [
  "steering_delivered",
  "model_changed",
  "playbook_changed",
  "playbook_refused",
  "system_changed",
  "run_stopped",
];

/** A filter over a group of event types (nothing when the run has none of them). */
function FilterGroup(
  props: {
    name: string;
    group: string;
    title: string;
    types: string[];
    counts: Map<string, number>;
    on: boolean;
    onToggle: () => void;
  },
) {
  if (!props.types.length) return null;
  return (
    <button
      type="button"
      class={props.on ? "filter active filter-group" : "filter filter-group"}
      aria-pressed={props.on}
      data-group={props.group}
      title={`${props.title}: ${props.types.join(", ")}`}
      onClick={props.onToggle}
    >
      {props.name}{" "}
      <span class="count">{props.types.reduce((n, t) => n + (props.counts.get(t) ?? 0), 0)}</span>
    </button>
  );
}

/** The journal events of hand-offs to peers: the filters' "Delegation" group. */
export const DELEGATION_TYPES = [
  "delegation_considered",
  "delegation_started",
  "delegation_finished",
  "delegation_declined",
];

/** A live run's mode and model: as loaded, then as its control events say. */
function currentState(trace: TraceView, events: JournalEvent[]): LiveView | null {
  if (!trace.live || !trace.live_state) return null;
  const last = (type: string) => events.findLast((e) => e.type === type)?.payload.to;
  return {
    ...trace.live_state,
    playbook: (last("playbook_changed") as string | undefined) ?? trace.live_state.playbook,
    model: (last("model_changed") as string | undefined) ?? trace.live_state.model,
  };
}

function RunPicker(props: { harness: HarnessDetail }) {
  const route = useStore().route.value;
  const runs = useApi<{ runs: RunRow[] }>(paths.runs(props.harness.id));
  // Runs still going are followed, and the list read again when one ends.
  useLiveRows(props.harness.id, runs.data?.runs ?? []);
  if (!runs.data) return <Pending error={runs.error} what="the runs" />;
  if (!runs.data.runs.length) {
    return (
      <Empty title="No runs to trace yet">
        <p>
          Run the harness above (or ask the copilot, or{" "}
          <code>framework run</code>) and its trace shows here.
        </p>
      </Empty>
    );
  }
  return (
    <div class="run-picker">
      <p class="muted">Choose a run to trace:</p>
      <ul class="pick-list">
        {runs.data.runs.map((r) => (
          <li key={r.run_id}>
            <Link to={withRoute(route, { run: r.run_id })} class="pick">
              <span class="mono">{shortId(r.run_id)}</span>
              <RunStatusBadge status={r.status} reason={r.reason} />
              <span class="excerpt">{oneLine(r.input_excerpt, 70)}</span>
              <Time iso={r.started_at} />
            </Link>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** How often a long trace's tab is drawn again while the rest of its pages come (ms). */
const REST_DRAW_MS = 400;

function RunTrace(props: { runId: string }) {
  const store = useStore();
  const route = store.route.value;
  const preview = useApi<TraceView>(paths.trace(props.runId, TRACE_PREVIEW));
  const trace = preview.data;
  const [liveEvents, setLiveEvents] = useState<JournalEvent[]>([]);
  // The rest of a long trace, page by page after the first (which shows at once): the integrity
  // verdict and the count came with the first page, and are the whole journal's.
  const [rest, setRest] = useState<{ runId: string; events: JournalEvent[]; done: boolean }>({
    runId: props.runId,
    events: [],
    done: false,
  });
  const needsMore = !!trace && !trace.live && trace.event_count > trace.events.length;
  useEffect(() => {
    if (!trace || !needsMore) return;
    const abort = new AbortController();
    setRest({ runId: props.runId, events: [], done: false });
    (async () => {
      let loaded: JournalEvent[] = [];
      // The tab is drawn again (its counts, filters and waterfall over every event read so far) at
      // most every REST_DRAW_MS while pages come, not after each one: a 100,000-event journal is
      // twenty pages.
      let drawn = performance.now();
      for (let from = trace.events.length + 1; from <= trace.event_count; from += TRACE_PAGE) {
        try {
          const page = await callApi<TraceView>(
            store.fetcher,
            paths.trace(props.runId, TRACE_PAGE, from),
            { signal: abort.signal },
          );
          if (abort.signal.aborted) return;
          loaded = loaded.concat(page.events);
          if (performance.now() - drawn >= REST_DRAW_MS) {
            drawn = performance.now();
            setRest({ runId: props.runId, events: loaded, done: false });
          }
        } catch {
          if (abort.signal.aborted) return;
          break; // what was read stays shown; the count says how many there are
        }
      }
      setRest({ runId: props.runId, events: loaded, done: true });
    })();
    return () => abort.abort();
  }, [props.runId, trace?.events.length, trace?.event_count, needsMore]);

  // A live run: follow its events over the page's live stream until it ends, then read the
  // finished trace (the events that came stay shown until the pages after the first have loaded).
  useRunFrames(trace?.live ? props.runId : null, trace?.events.at(-1)?.seq ?? 0, (f) => {
    // A request coming or going changes the rail's count at once (not at its next poll).
    if (f.kind !== "trace" || isApprovalEvent(f.event)) approvalsChanged(store);
    if (f.kind === "trace") setLiveEvents((xs) => [...xs, f.event]);
    else void store.cache.load(paths.trace(props.runId, TRACE_PREVIEW), true);
  });

  const events = useMemo(() => {
    const first = trace?.events ?? [];
    const base = rest.runId === props.runId && rest.events.length
      ? first.concat(rest.events)
      : first;
    const seen = base.at(-1)?.seq ?? 0;
    return liveEvents.length ? [...base, ...liveEvents.filter((e) => e.seq > seen)] : base;
  }, [trace, rest, liveEvents]);

  if (!trace) {
    return preview.error
      ? (
        <Empty title={preview.error.status === 404 ? "No such run" : "The trace could not be read"}>
          <p>{preview.error.message}</p>
          <p>
            <Link to={withRoute(route, { run: null })}>Choose another run</Link>
          </p>
        </Empty>
      )
      : <Pending what="the trace" />;
  }
  return (
    <TraceBody
      trace={trace}
      events={events}
      complete={!needsMore || (rest.runId === props.runId && rest.done)}
    />
  );
}

function TraceBody(props: { trace: TraceView; events: JournalEvent[]; complete: boolean }) {
  const route = useStore().route.value;
  const { trace, events } = props;
  const run = trace.run;
  const counts = useMemo(() => {
    const c = new Map<string, number>();
    for (const e of events) c.set(e.type, (c.get(e.type) ?? 0) + 1);
    return c;
  }, [events]);
  const types = route.query.types ? new Set(route.query.types.split(",")) : null;
  const shown = useMemo(
    () => (types ? events.filter((e) => types.has(e.type)) : events),
    [events, route.query.types],
  );
  const selection = useEventSelection(shown, events);
  const [addingCase, setAddingCase] = useState(false);
  const figures = useRunFigures(trace, events);

  return (
    <div class="trace" data-testid="trace" data-complete={props.complete ? "true" : "false"}>
      <TraceHead
        trace={trace}
        events={events}
        counts={counts}
        figures={figures}
        addingCase={addingCase}
        onAddingCase={setAddingCase}
      />
      <TraceApprovals trace={trace} events={events} />
      {addingCase && !trace.live
        ? (
          <EvalCaseForm
            key={run.run_id}
            runId={run.run_id}
            harnessId={run.harness_id}
            onClose={() => setAddingCase(false)}
          />
        )
        : null}
      <TracePanels trace={trace} events={events} counts={counts} cost={figures.cost_usd} />
      <TypeFilters
        events={events}
        counts={counts}
        types={types}
        loading={props.complete ? null : trace.event_count}
      />
      <WaterfallPanel trace={trace} events={events} selection={selection} />
      <TraceSplit trace={trace} events={events} shown={shown} selection={selection} />
    </div>
  );
}

/** The selected event (by the route's `seq`), and how to select another or move along the list. */
interface EventSelection {
  seq: number | null;
  selected: JournalEvent | undefined;
  select: (e: JournalEvent | undefined) => void;
  move: (step: number) => void;
}

/** The event selection of Trace: by click, by `j`/`k` and the arrow keys, by the waterfall. */
function useEventSelection(shown: JournalEvent[], events: JournalEvent[]): EventSelection {
  const store = useStore();
  const route = store.route.value;
  const seq = route.query.seq ? Number(route.query.seq) : null;
  const selected = seq === null ? undefined : events.find((e) => e.seq === seq);
  const select = (e: JournalEvent | undefined) => {
    if (!e) return;
    store.navigate(withRoute(store.route.value, { query: { seq: String(e.seq) } }), {
      replace: true,
    });
  };
  const move = (step: number) => {
    if (!shown.length) return;
    if (seq === null) return select(shown[step > 0 ? 0 : shown.length - 1]);
    const i = shown.findIndex((e) => e.seq === seq);
    if (i >= 0) return select(shown[Math.max(0, Math.min(shown.length - 1, i + step))]);
    // The selected event is filtered out: go to the nearest shown one in that direction.
    select(
      step > 0
        ? shown.find((e) => e.seq > seq) ?? shown.at(-1)
        : shown.findLast((e) => e.seq < seq) ?? shown[0],
    );
  };
  useShortcuts({ j: () => move(1), k: () => move(-1) });
  return { seq, selected, select, move };
}

/** A live run's switches and steering, the hand-offs, the lineage, the integrity, the failure. */
function TracePanels(
  props: { trace: TraceView; events: JournalEvent[]; counts: Map<string, number>; cost: number },
) {
  const { trace, events } = props;
  const run = trace.run;
  const live = currentState(trace, events);
  return (
    <>
      {live ? <RunSwitches runId={run.run_id} state={live} /> : null}
      {live || props.counts.has("steering_delivered")
        ? <SteerBox controls={paths.runControls(run.run_id)} live={!!live} />
        : null}
      <DelegationPanel events={events} totalCost={props.cost} />
      <LineagePanel runId={run.run_id} live={trace.live} />
      <Integrity trace={trace} />
      {run.failure_signature
        ? (
          <p class="failure">
            <strong>Failure signature</strong> <code>{run.failure_signature}</code>
            {run.error ? ` — ${run.error}` : ""}
          </p>
        )
        : null}
    </>
  );
}

/** The waterfall of the run, which can be hidden (it shows every event, whatever the filters). */
function WaterfallPanel(
  props: { trace: TraceView; events: JournalEvent[]; selection: EventSelection },
) {
  const [shown, setShown] = useState(true);
  const run = props.trace.run;
  const live = props.trace.live && !props.events.some((e) => e.type === "run_finished");
  return (
    <div class="waterfall-panel">
      <button
        type="button"
        class="link-button small"
        aria-expanded={shown}
        data-testid="waterfall-toggle"
        onClick={() => setShown(!shown)}
      >
        {shown ? "Hide the waterfall" : "Show the waterfall"}
      </button>
      {shown
        ? (
          <Waterfall
            runId={run.run_id}
            harnessId={run.harness_id}
            events={props.events}
            live={live}
            selected={props.selection.seq}
            onSelect={(seq) => props.selection.select(props.events.find((e) => e.seq === seq))}
          />
        )
        : null}
    </div>
  );
}

/** The event list and the selected event's detail, side by side. */
function TraceSplit(
  props: {
    trace: TraceView;
    events: JournalEvent[];
    shown: JournalEvent[];
    selection: EventSelection;
  },
) {
  const { events, selection } = props;
  const run = props.trace.run;
  const start = Date.parse(events[0]?.ts ?? run.started_at);
  return (
    <div class="trace-split">
      <EventList
        events={props.shown}
        selected={selection.selected?.seq ?? null}
        start={start}
        brokenAt={props.trace.integrity.broken_at}
        onSelect={selection.select}
        onMove={selection.move}
        reentrySeq={reentrySeqOf(events)}
        onFork={(e) => {
          selection.select(e);
          requestAnimationFrame(() => document.getElementById(FORK_NAME_ID)?.focus());
        }}
      />
      <EventDetailPane
        selected={selection.selected}
        events={events}
        start={start}
        runId={run.run_id}
      />
    </div>
  );
}

/**
 * The cards of the shown run's requests still waiting for a person, above its events: those its
 * journal holds open while it is live here (they come and go with its events), and those the hive
 * still has pending for a run that is not (one stopped while it waited, or going on in another
 * process sharing the hive). Approving a request of a stopped run takes the run up again as a new
 * run, whose Trace opens.
 */
function TraceApprovals(props: { trace: TraceView; events: JournalEvent[] }) {
  const store = useStore();
  const pending = usePendingApprovals();
  const [decided, setDecided] = useState<ReadonlySet<string>>(new Set());
  const run = props.trace.run;
  const live = props.trace.live && !props.events.some((e) => e.type === "run_finished");
  const open = openRequests(props.events);
  const waiting = open.filter((r) =>
    !decided.has(r.approval_id) &&
    (live || pending.some((p) => p.approval_id === r.approval_id))
  );
  // A request the page's list does not have yet (asked before the trace was read): the rail's count
  // is read again now, not at its next poll.
  const unlisted = open.filter((r) => !pending.some((p) => p.approval_id === r.approval_id))
    .map((r) => r.approval_id).join(",");
  useEffect(() => {
    if (live && unlisted) approvalsChanged(store);
  }, [unlisted, live]);
  if (!waiting.length) return null;
  return (
    <div class="approval-cards">
      {waiting.map((r) => (
        <ApprovalCard
          key={r.approval_id}
          request={{ ...r, run_id: run.run_id, harness_id: run.harness_id }}
          onDecided={(record) => {
            setDecided((d) => new Set(d).add(record.approval_id));
            if (record.resumed_run_id) {
              store.notify(`The run goes on as ${shortId(record.resumed_run_id)}.`);
              store.navigate(withRoute(store.route.value, { run: record.resumed_run_id }));
            }
          }}
        />
      ))}
    </div>
  );
}

/** The selected event's payload, timing and context; or how to select one. */
function EventDetailPane(props: {
  selected: JournalEvent | undefined;
  events: JournalEvent[];
  start: number;
  runId: string;
}) {
  return (
    <div class="event-detail" aria-live="polite">
      {props.selected
        ? (
          <EventDetail
            event={props.selected}
            previous={props.events[props.events.indexOf(props.selected) - 1]}
            start={props.start}
            runId={props.runId}
          />
        )
        : (
          <Empty title="Select an event">
            <p>
              Click an event, or use <kbd>j</kbd> and{" "}
              <kbd>k</kbd>, to see its payload and timing. At a model call you also see the context
              the model was given.
            </p>
          </Empty>
        )}
    </div>
  );
}

/** A run's cost, turns and duration as the trace head shows them. */
interface RunFigures {
  cost_usd: number;
  turns: number;
  duration_ms: number | null;
}

/**
 * A run's figures: a finished run's from its row; a live run's row has no cost, turns or duration
 * yet, so its events so far and the clock say them.
 */
function useRunFigures(trace: TraceView, events: JournalEvent[]): RunFigures {
  const run = trace.run;
  const now = useNow(trace.live);
  const tally = useMemo(() => trace.live ? runTally(events) : null, [trace.live, events]);
  return tally
    ? { ...tally, duration_ms: elapsedSince(run.started_at, now) }
    : { cost_usd: run.cost_usd, turns: run.turns, duration_ms: run.duration_ms };
}

/** A resumed fork's first live event (after its replayed prefix, which is dimmed), else null. */
function reentrySeqOf(events: JournalEvent[]): number | null {
  const lastReplayed = events.findLast((e) => e.type === "replayed")?.seq;
  return lastReplayed === undefined ? null : events.find((e) => e.seq > lastReplayed)?.seq ?? null;
}

/**
 * The run's id and outcome, Add to eval set and Export (once it ended), and its figures (a turn of a
 * thread links its conversation).
 */
function TraceHead(props: {
  trace: TraceView;
  events: JournalEvent[];
  counts: Map<string, number>;
  figures: RunFigures;
  addingCase: boolean;
  onAddingCase: (adding: boolean) => void;
}) {
  const { trace, events, counts, figures } = props;
  const run = trace.run;
  const route = useStore().route.value;
  return (
    <div class="trace-head">
      <div class="trace-run">
        <code class="mono" title={run.run_id}>{run.run_id}</code>
        <RunStatusBadge status={trace.live ? "running" : run.status} reason={run.reason} />
      </div>
      <div class="trace-actions">
        {trace.live ? null : (
          <button
            type="button"
            data-testid="add-to-eval"
            aria-expanded={props.addingCase}
            onClick={() => props.onAddingCase(!props.addingCase)}
          >
            <Icon name="plus" /> Add to eval set
          </button>
        )}
        {trace.live ? null : (
          <a
            class="button"
            href={`/api/runs/${encodeURIComponent(run.run_id)}/export`}
            download
          >
            <Icon name="download" /> Export journal
          </a>
        )}
      </div>
      <div class="trace-stats">
        <span class="kv" data-stat="cost">
          <span>cost</span> {formatCost(figures.cost_usd)}
        </span>
        <span class="kv" data-stat="turns">
          <span>turns</span> {figures.turns}
        </span>
        <span class="kv" data-stat="duration">
          <span>duration</span> {formatDuration(figures.duration_ms)}
        </span>
        <span class="kv">
          <span>started</span> <Time iso={run.started_at} />
        </span>
        <span class="kv">
          <span>events</span> {Math.max(trace.event_count, events.length)}
        </span>
        <span class="kv">
          <span>spec</span> <code>{run.spec_version.slice(0, 12)}</code>
        </span>
        {run.thread_id
          ? (
            <span class="kv" data-testid="trace-thread">
              <span>thread</span>{" "}
              <Link
                to={withRoute(route, { tab: "runs", query: { thread: run.thread_id } })}
                title={`A turn of ${run.thread_id}: view the conversation`}
              >
                {shortId(run.thread_id)}
              </Link>
            </span>
          )
          : null}
        {counts.has("delegation_started")
          ? (
            <span class="kv" data-testid="delegation-stat">
              <span>delegated</span> {counts.get("delegation_started")} · {formatCost(
                events.filter((e) => e.type === "delegation_finished").reduce(
                  (n, e) => n + Number(e.payload.cost_usd ?? 0),
                  0,
                ),
              )}
            </span>
          )
          : null}
      </div>
    </div>
  );
}

/**
 * The filters by event type: all, the Delegation, Approvals and Controls groups, and one per type the run
 * has, each with its count; kept in the address (`types`). While the rest of a long trace loads,
 * `loading` is how many events there are.
 */
function TypeFilters(props: {
  events: JournalEvent[];
  counts: Map<string, number>;
  types: Set<string> | null;
  loading: number | null;
}) {
  const store = useStore();
  const route = store.route.value;
  const { counts, types } = props;
  const showTypes = (next: Set<string>) =>
    store.navigate(withRoute(route, { query: { types: [...next].join(",") } }), { replace: true });
  const toggle = (type: string) => {
    const next = new Set(types ?? []);
    if (next.has(type)) next.delete(type);
    else next.add(type);
    showTypes(next);
  };
  const group = (groupTypes: string[]) => {
    const on = groupTypes.length > 0 && groupTypes.every((t) => types?.has(t));
    const toggleGroup = () => {
      const next = new Set(types ?? []);
      for (const t of groupTypes) on ? next.delete(t) : next.add(t);
      showTypes(next);
    };
    return { types: groupTypes, counts, on, onToggle: toggleGroup };
  };
  return (
    <div class="type-filters" role="group" aria-label="Filter events by type">
      <button
        type="button"
        class={types ? "filter" : "filter active"}
        aria-pressed={!types}
        onClick={() =>
          store.navigate(withRoute(route, { query: { types: "" } }), { replace: true })}
      >
        all <span class="count">{props.events.length}</span>
      </button>
      <FilterGroup
        name="Delegation"
        group="delegation"
        title="Hand-offs to peers"
        {...group(DELEGATION_TYPES.filter((t) => counts.has(t)))}
      />
      <FilterGroup
        name="Approvals"
        group="approvals"
        title="Tool calls waiting for a person, and the decisions"
        {...group(APPROVAL_TYPES.filter((t) => counts.has(t)))}
      />
      <FilterGroup
        name="Controls"
        group="controls"
        title="Steering, model and mode changes, stops"
        {...group(CONTROL_TYPES.filter((t) => counts.has(t)))}
      />
      {[...counts].map(([type, n]) => (
        <button
          key={type}
          type="button"
          class={types?.has(type) ? `filter active type-${type}` : `filter type-${type}`}
          aria-pressed={!!types?.has(type)}
          data-type={type}
          onClick={() => toggle(type)}
        >
          {type} <span class="count">{n}</span>
        </button>
      ))}
      {props.loading === null
        ? null
        : <span class="muted">loading all {props.loading} events…</span>}
    </div>
  );
}

function Integrity(props: { trace: TraceView }) {
  const i = props.trace.integrity;
  if (i.ok && props.trace.live) {
    return (
      <div class="integrity integrity-live" role="status" data-integrity="live">
        <Icon name="shield" size={18} />
        <div>
          <strong>Still being written</strong> — the {i.checked}{" "}
          events written when the page opened verify; the whole chain is checked again when the run
          ends.
        </div>
      </div>
    );
  }
  if (i.ok) {
    return (
      <div class="integrity integrity-ok" role="status" data-integrity="ok">
        <Icon name="shield" size={18} />
        <div>
          <strong>Hash chain verified</strong> — all {i.checked}{" "}
          events are intact, in order, and unchanged since they were written.{" "}
          {props.trace.run.head_hash
            ? (
              <span class="muted">
                Head hash <code>{props.trace.run.head_hash.slice(0, 12)}</code>.
              </span>
            )
            : null}
        </div>
      </div>
    );
  }
  return (
    <div class="integrity integrity-bad" role="alert" data-integrity="broken">
      <Icon name="alert" size={18} />
      <div>
        <strong>Hash chain broken at event {i.broken_at}</strong> — the first {i.checked}{" "}
        events verify; from event {i.broken_at}{" "}
        on, the journal was changed, reordered or cut after it was written. Do not trust what
        follows.
      </div>
    </div>
  );
}

function EventList(
  props: {
    events: JournalEvent[];
    selected: number | null;
    start: number;
    /** The first event that does not verify: it and the ones after are marked. */
    brokenAt: number | null;
    onSelect: (e: JournalEvent) => void;
    /** Arrow keys while the list has the focus. */
    onMove: (step: number) => void;
    /** A resumed fork's first live event, marked "re-entered here". */
    reentrySeq: number | null;
    /** Opens the fork form at a model call (absent where forking is not offered). */
    onFork?: (e: JournalEvent) => void;
  },
) {
  const { ref, view, measure } = useScrollView<HTMLDivElement>(FIRST_ROWS * ROW_HEIGHT);
  // Keep the selected row in view.
  useEffect(() => {
    const el = ref.current;
    if (!el || props.selected === null) return;
    const i = props.events.findIndex((e) => e.seq === props.selected);
    if (i < 0) return;
    const top = i * ROW_HEIGHT;
    if (top < el.scrollTop) el.scrollTop = top;
    else if (top + ROW_HEIGHT > el.scrollTop + el.clientHeight) {
      el.scrollTop = top + ROW_HEIGHT - el.clientHeight;
    }
  }, [props.selected, props.events.length]);

  const first = Math.max(0, Math.floor(view.top / ROW_HEIGHT) - OVERSCAN);
  const last = Math.min(
    props.events.length,
    Math.ceil((view.top + view.height) / ROW_HEIGHT) + OVERSCAN,
  );
  const rows = props.events.slice(first, last);
  return (
    <div
      class="event-list"
      ref={ref}
      role="listbox"
      aria-label="Events"
      tabIndex={0}
      onKeyDown={(e) => {
        if (e.key !== "ArrowDown" && e.key !== "ArrowUp") return;
        e.preventDefault();
        props.onMove(e.key === "ArrowDown" ? 1 : -1);
      }}
      onScroll={measure}
    >
      {props.events.length
        ? (
          <div class="event-space" style={{ height: `${props.events.length * ROW_HEIGHT}px` }}>
            {rows.map((e, k) => (
              <div
                key={e.seq}
                class={`event-row ${e.seq === props.selected ? "selected" : ""} ${
                  props.brokenAt !== null && e.seq >= props.brokenAt ? "unverified" : ""
                } ${e.type === "replayed" ? "replayed" : ""} ${
                  e.seq === props.reentrySeq ? "reentry" : ""
                }`}
                title={props.brokenAt !== null && e.seq >= props.brokenAt
                  ? "After the break in the hash chain: not verified"
                  : undefined}
                style={{ top: `${(first + k) * ROW_HEIGHT}px` }}
                role="option"
                aria-selected={e.seq === props.selected}
                data-seq={e.seq}
                onClick={() => props.onSelect(e)}
              >
                <span class="ev-seq">{e.seq}</span>
                <span class="ev-time">+{formatDuration(Date.parse(e.ts) - props.start)}</span>
                <span class={`ev-type type-${e.type}`}>{e.type}</span>
                <span class="ev-summary" title={summary(e)}>{summary(e)}</span>
                {e.seq === props.reentrySeq
                  ? (
                    <span class="reentry-marker" data-testid="reentry-marker">
                      re-entered here
                    </span>
                  )
                  : null}
                {e.type === "model_call" && props.onFork
                  ? (
                    <button
                      type="button"
                      class="row-action"
                      title="Fork the run here"
                      data-testid="fork-here"
                      onClick={(ev) => {
                        ev.stopPropagation();
                        props.onFork!(e);
                      }}
                    >
                      <Icon name="fork" size={12} label="Fork here" />
                    </button>
                  )
                  : null}
              </div>
            ))}
          </div>
        )
        : <p class="muted pad">No events of the chosen types.</p>}
    </div>
  );
}

/** A one-line account of an event. */
export function summary(e: JournalEvent): string {
  const p = e.payload as Record<string, unknown>;
  switch (e.type) {
    case "run_started":
      return `input ${oneLine(p.input, 90)}`;
    case "model_call":
      return `turn ${p.turn} · ${p.message_count} messages · tools: ${
        (p.tools as string[] | undefined)?.join(", ") || "none"
      }`;
    case "model_response": {
      const calls = (p.tool_calls as unknown[] | undefined)?.length ?? 0;
      const u = p.usage as { input_tokens?: number; output_tokens?: number } | undefined;
      return [
        `turn ${p.turn}`,
        p.text ? oneLine(p.text, 60) : null,
        calls ? `${calls} tool call${calls > 1 ? "s" : ""}` : null,
        u ? `${u.input_tokens}→${u.output_tokens} tokens` : null,
        typeof p.latency_ms === "number" ? formatDuration(p.latency_ms) : null,
      ].filter(Boolean).join(" · ");
    }
    case "tool_call":
      if (p.source === "mcp") {
        return `${oneLine(p.name ?? "?", 40)}(${oneLine(p.arguments, 60)}) · MCP ${p.server}`;
      }
      return `${oneLine(p.name ?? "?", 40)}(${oneLine(p.arguments, 70)})`;
    case "tool_result":
      return `${oneLine(p.name ?? "?", 40)} ${p.ok ? "ok" : "failed"} · ${
        oneLine(p.content ?? p.error, 60)
      }${typeof p.duration_ms === "number" ? ` · ${formatDuration(p.duration_ms)}` : ""}`;
    case "run_finished":
      return `${
        runOutcome(String(p.status ?? ""), (p.error as { reason?: string } | undefined)?.reason)
      } · ${formatCost(p.cost_usd as number)} · ${formatDuration(p.duration_ms as number)}`;
    case "delegation_considered":
      return `${(p.candidates as unknown[] | undefined)?.length ?? 0} peers · depth ${p.depth}`;
    case "delegation_started":
      return `→ ${p.peer} (${shortId(String(p.child_run_id))})`;
    case "delegation_finished":
      return `${p.peer} ${p.status} · ${formatCost(p.cost_usd as number)} · ${p.turns} turns`;
    case "delegation_declined":
      return `declined: ${oneLine(p.reason, 90)}`;
    case "fork_edited":
      return `${
        p.kind === "user_message" ? "user message" : `result of ${p.tool ?? "?"} (${p.call_id})`
      } · ${oneLine(p.original, 40)} → ${oneLine(p.replacement, 50)}`;
    case "fork_resumed":
      return `re-enters ${shortId(String(p.parent_run_id))} at seq ${p.at}`;
    case "replayed":
      return `${p.original_type} #${p.original_seq} · ${
        summary({
          ...e,
          type: String(p.original_type),
          payload: p.payload as JournalEvent["payload"],
        })
      }`;
    case "approval_requested":
      return `${oneLine(p.tool ?? "?", 40)}(${
        oneLine(p.arguments, 60)
      }) waits for a person · expires ${formatUtc(String(p.expires_at))}`;
    case "approval_decided":
      return `${p.decision} by ${p.by ?? "?"}${p.reason ? `: ${oneLine(p.reason, 70)}` : ""}`;
    case "run_resumed":
      return `takes up ${shortId(String(p.parent_run_id))} at seq ${p.at} after ${
        shortId(String(p.approval_id))
      }`;
    case "steering_delivered":
      return `turn ${p.turn} · ${oneLine(p.text, 90)}`;
    case "model_changed":
    case "playbook_changed":
      return `turn ${p.turn} · ${p.from ?? "none"} → ${p.to} · by ${p.by ?? "?"}`;
    case "playbook_refused":
      return `turn ${p.turn} · ${p.from ?? "none"} → ${p.to} refused by ${p.gate}: ${
        oneLine(p.reason, 60)
      }`;
    case "system_changed":
      return `turn ${p.turn} · ${oneLine(p.system, 90)}`;
    case "run_stopped":
      return `after turn ${p.turn} · by ${p.by ?? "?"}${p.now ? " · now" : " · at the boundary"}`;
    default:
      return oneLine(p, 100);
  }
}

function EventDetail(
  props: { event: JournalEvent; previous: JournalEvent | undefined; start: number; runId: string },
) {
  const e = props.event;
  const p = e.payload as Record<string, unknown>;
  const at = Date.parse(e.ts);
  const timing: [string, string][] = [
    ["since start", formatDuration(at - props.start)],
    ["after previous", props.previous ? formatDuration(at - Date.parse(props.previous.ts)) : "—"],
  ];
  if (typeof p.latency_ms === "number") {
    timing.push(["model latency", formatDuration(p.latency_ms)]);
  }
  if (typeof p.duration_ms === "number") timing.push(["duration", formatDuration(p.duration_ms)]);
  return (
    <div class="detail" data-seq={e.seq}>
      <header class="detail-head">
        <span class={`ev-type type-${e.type}`}>{e.type}</span>
        <span class="muted">#{e.seq}</span>
        <code class="muted" title={`hash ${e.hash}\nprev ${e.prev}`}>{e.hash.slice(0, 12)}</code>
      </header>
      <dl class="timing">
        {timing.map(([k, v]) => (
          <div key={k}>
            <dt>{k}</dt>
            <dd>{v}</dd>
          </div>
        ))}
        <div>
          <dt>written</dt>
          <dd>
            <code>{e.ts}</code>
          </dd>
        </div>
      </dl>
      {e.type === "model_call"
        ? (
          <>
            <ForkForm
              runId={props.runId}
              seq={e.seq}
              append={(p.append as AppendedMessage[] | undefined) ?? []}
            />
            <FoldedContextView runId={props.runId} seq={e.seq} />
          </>
        )
        : null}
      <h3 class="detail-title">Payload</h3>
      <JsonView value={e.payload} open={2} />
    </div>
  );
}

function FoldedContextView(props: { runId: string; seq: number }) {
  const ctx = useApi<FoldedContext>(paths.context(props.runId, props.seq));
  return (
    <details class="context" open>
      <summary class="detail-title">Context at this call</summary>
      {!ctx.data
        ? <Pending error={ctx.error} what="the context" />
        : (
          <div class="context-body" data-testid="folded-context">
            <p class="muted">
              Turn {ctx.data.turn} · {ctx.data.model.provider}:{ctx.data.model.name ?? "—"} ·{" "}
              {ctx.data.messages.length} messages · tools: {ctx.data.tools.join(", ") || "none"}
            </p>
            {ctx.data.system ? <ContextMessage role="system" content={ctx.data.system} /> : null}
            {ctx.data.messages.map((m, i) => (
              <ContextMessage
                key={i}
                role={m.role === "tool" ? `tool · ${m.name}` : m.role}
                content={m.content}
                calls={m.role === "assistant" ? m.tool_calls : undefined}
              />
            ))}
          </div>
        )}
    </details>
  );
}

function ContextMessage(props: { role: string; content: string; calls?: unknown[] | undefined }) {
  return (
    <div class={`ctx-msg ctx-${props.role.split(" ")[0]}`}>
      <p class="ctx-role">{props.role}</p>
      {props.content ? <pre class="ctx-content">{props.content}</pre> : null}
      {props.calls?.length ? <JsonView value={props.calls} open={1} label="tool_calls" /> : null}
    </div>
  );
}
