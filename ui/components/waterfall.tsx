/**
 * The waterfall of a run (Trace, beside the event list): one bar per model call, tool call, approval
 * wait, hand-off and replayed prefix on a time axis from the journal's timestamps (`lib/waterfall.ts`
 * makes the spans). A hand-off's child run opens nested under it; hovering a bar shows its duration,
 * tokens and cost; clicking selects its event. Only the rows in view are drawn, so 10,000 events
 * stay smooth, and a live run's open bars grow with the clock.
 *
 * @module
 */

import { useMemo, useState } from "preact/hooks";
import { useScrollView } from "../scroll_view.ts";
import { spanDuration, waterfallOf, type WaterfallSpan } from "../../lib/waterfall.ts";
import { callApi } from "../api.ts";
import { formatCost, formatDuration } from "../format.ts";
import { useNow } from "../live_runs.ts";
import { paths, TRACE_PAGE } from "../paths.ts";
import { withRoute } from "../route.ts";
import { useStore } from "../store.ts";
import type { JournalEvent, TraceView } from "../types.ts";

/** Height of one waterfall row, in pixels (the CSS uses the same). */
export const WATERFALL_ROW = 24;
/** Rows shown before the list scrolls. */
const VISIBLE_ROWS = 12;
const OVERSCAN = 8;

/** A row: a span, placed on the parent run's axis, and the run it belongs to. */
interface Row {
  span: WaterfallSpan;
  /** The run whose event the span opens. */
  runId: string;
  harnessId: string | null;
  /** Added to the span's times to place it on the shown run's axis. */
  offset: number;
  depth: number;
  /** A hand-off's child: whether it is open, loading or failed. */
  child?: "open" | "closed" | "loading" | "failed";
}

/** A child run's spans, once read. */
type ChildState = { state: "loading" } | { state: "failed" } | {
  state: "open";
  start: number;
  spans: WaterfallSpan[];
};

/**
 * The waterfall of a run.
 *
 * @param props The run's events, whether it is live, the selected seq and how to select one.
 * @returns The waterfall.
 */
export function Waterfall(props: {
  runId: string;
  harnessId: string;
  events: JournalEvent[];
  live: boolean;
  selected: number | null;
  onSelect: (seq: number) => void;
}) {
  const store = useStore();
  const w = useMemo(() => waterfallOf(props.events), [props.events]);
  const [children, setChildren] = useState<ReadonlyMap<string, ChildState>>(new Map());
  const clock = useNow(props.live);
  const now = clock === null || !props.live ? w.end_ms : Math.max(w.end_ms, clock - w.start);
  const rows = useMemo(
    () => rowsOf(w.spans, props.runId, props.harnessId, w.start, children),
    [w, children],
  );
  const total = Math.max(
    1,
    now,
    ...rows.filter((r) => r.offset).map((r) => r.offset + (r.span.end_ms ?? r.span.start_ms)),
  );
  const [hover, setHover] = useState<{ row: Row; x: number; y: number } | null>(null);

  const toggle = async (span: WaterfallSpan) => {
    const id = span.child!.run_id;
    if (children.get(id)?.state === "open" || children.get(id)?.state === "loading") {
      setChildren((m) => {
        const next = new Map(m);
        next.delete(id);
        return next;
      });
      return;
    }
    setChildren((m) => new Map(m).set(id, { state: "loading" }));
    try {
      const t = await callApi<TraceView>(store.fetcher, paths.trace(id, TRACE_PAGE));
      const cw = waterfallOf(t.events);
      setChildren((m) => new Map(m).set(id, { state: "open", start: cw.start, spans: cw.spans }));
    } catch {
      setChildren((m) => new Map(m).set(id, { state: "failed" }));
    }
  };
  const choose = (row: Row) => {
    if (row.runId === props.runId) return props.onSelect(row.span.seq);
    store.navigate(
      withRoute(store.route.value, {
        harness: row.harnessId ?? store.route.value.harness,
        tab: "trace",
        run: row.runId,
        query: { seq: String(row.span.seq) },
      }),
    );
  };

  if (!w.spans.length) return null;
  return (
    <section class="waterfall" aria-label="Waterfall" data-testid="waterfall">
      <Axis total={total} />
      <Rows
        rows={rows}
        total={total}
        now={now}
        selected={props.selected}
        mainRun={props.runId}
        onChoose={choose}
        onToggle={(span) => void toggle(span)}
        onHover={(row, x, y) => setHover(row ? { row, x, y } : null)}
      />
      {hover ? <Tip row={hover.row} now={now} x={hover.x} y={hover.y} /> : null}
    </section>
  );
}

/** The spans of the run, with each open hand-off's child spans under it. */
function rowsOf(
  spans: WaterfallSpan[],
  runId: string,
  harnessId: string | null,
  start: number,
  children: ReadonlyMap<string, ChildState>,
  offset = 0,
  depth = 0,
): Row[] {
  const out: Row[] = [];
  for (const span of spans) {
    const c = span.child ? children.get(span.child.run_id) : undefined;
    out.push({
      span,
      runId,
      harnessId,
      offset,
      depth: depth + span.depth,
      ...(span.child ? { child: c ? (c.state === "open" ? "open" : c.state) : "closed" } : {}),
    });
    if (span.child && c?.state === "open") {
      out.push(
        ...rowsOf(
          c.spans,
          span.child.run_id,
          span.child.harness_id,
          c.start,
          children,
          offset + (c.start - start),
          depth + span.depth + 1,
        ),
      );
    }
  }
  return out;
}

/** The time axis: at most about six ticks, at round durations (labels never crowd). */
function Axis(props: { total: number }) {
  const step = niceStep(props.total / 6);
  const ticks: number[] = [];
  for (let t = 0; t <= props.total; t += step) ticks.push(t);
  return (
    <div class="wf-axis" aria-hidden="true">
      <span class="wf-label-col">{formatDuration(props.total)} in all</span>
      <div class="wf-track">
        {ticks.map((t) => (
          <span key={t} class="wf-tick" style={{ left: `${(t / props.total) * 100}%` }}>
            {formatDuration(t)}
          </span>
        ))}
      </div>
    </div>
  );
}

/** The smallest round step (1, 2 or 5 × a power of ten) at least `raw`. */
function niceStep(raw: number): number {
  if (!(raw > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(raw));
  const f = raw / p;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
}

/** The rows in view of a scrolling list (the others are not in the page). */
function Rows(props: {
  rows: Row[];
  total: number;
  now: number;
  selected: number | null;
  mainRun: string;
  onChoose: (row: Row) => void;
  onToggle: (span: WaterfallSpan) => void;
  onHover: (row: Row | null, x: number, y: number) => void;
}) {
  const { ref, view, measure } = useScrollView<HTMLDivElement>(VISIBLE_ROWS * WATERFALL_ROW);
  const first = Math.max(0, Math.floor(view.top / WATERFALL_ROW) - OVERSCAN);
  const last = Math.min(
    props.rows.length,
    Math.ceil((view.top + view.height) / WATERFALL_ROW) + OVERSCAN,
  );
  return (
    <div
      class="wf-rows"
      ref={ref}
      style={{ height: `${Math.min(props.rows.length, VISIBLE_ROWS) * WATERFALL_ROW + 2}px` }}
      onScroll={measure}
      onMouseLeave={() => props.onHover(null, 0, 0)}
    >
      <div class="wf-space" style={{ height: `${props.rows.length * WATERFALL_ROW}px` }}>
        {props.rows.slice(first, last).map((row, k) => (
          <WaterfallRow
            key={`${row.runId}:${row.span.id}`}
            row={row}
            top={(first + k) * WATERFALL_ROW}
            total={props.total}
            now={props.now}
            selected={row.runId === props.mainRun &&
              (row.span.seq === props.selected || row.span.end_seq === props.selected)}
            onChoose={props.onChoose}
            onToggle={props.onToggle}
            onHover={props.onHover}
          />
        ))}
      </div>
    </div>
  );
}

/** What a bar says to a screen reader and in its tip: its event type, name and duration. */
export function barLabel(span: WaterfallSpan, now: number): string {
  const d = formatDuration(spanDuration(span, now));
  return `${span.type} ${span.label} ${d}${span.end_ms === null ? " so far" : ""}`;
}

function WaterfallRow(props: {
  row: Row;
  top: number;
  total: number;
  now: number;
  selected: boolean;
  onChoose: (row: Row) => void;
  onToggle: (span: WaterfallSpan) => void;
  onHover: (row: Row | null, x: number, y: number) => void;
}) {
  const { row, total } = props;
  const s = row.span;
  const start = row.offset + s.start_ms;
  // A child's open spans are measured to the child's last event, not the parent's clock.
  const duration = spanDuration(s, row.offset ? s.end_ms ?? s.start_ms : props.now);
  const left = (start / total) * 100;
  const width = Math.max(0, (duration / total) * 100);
  return (
    <div
      class={`wf-row${props.selected ? " selected" : ""}${row.offset ? " wf-nested" : ""}`}
      style={{ top: `${props.top}px` }}
      data-kind={s.kind}
      data-run={row.runId}
      data-depth={row.depth}
    >
      <span class="wf-label-col" style={{ paddingLeft: `${row.depth * 14 + 4}px` }}>
        {row.child
          ? (
            <button
              type="button"
              class="wf-expand"
              aria-expanded={row.child === "open"}
              aria-label={`${row.child === "open" ? "Close" : "Open"} the child run ${
                s.child!.run_id
              }`}
              data-testid="wf-expand"
              onClick={() => props.onToggle(s)}
            >
              {row.child === "open" ? "▾" : row.child === "loading" ? "…" : "▸"}
            </button>
          )
          : null}
        <span class={`wf-name wf-${s.kind}`} title={s.label}>{s.label}</span>
        {row.child === "failed" ? <span class="field-error small">could not be read</span> : null}
      </span>
      <div class="wf-track">
        <button
          type="button"
          class={`wf-bar wf-${s.kind}${s.ok === false ? " wf-failed" : ""}${
            s.end_ms === null ? " wf-open" : ""
          }`}
          style={{ left: `${left}%`, width: `max(3px, ${width}%)` }}
          aria-label={barLabel(s, row.offset ? s.end_ms ?? s.start_ms : props.now)}
          data-seq={s.seq}
          data-duration={Math.round(duration)}
          onClick={() => props.onChoose(row)}
          onMouseEnter={(e) => props.onHover(row, e.clientX, e.clientY)}
          onMouseMove={(e) => props.onHover(row, e.clientX, e.clientY)}
          onFocus={(e) => {
            const r = e.currentTarget.getBoundingClientRect();
            props.onHover(row, r.left, r.bottom);
          }}
          onBlur={() => props.onHover(null, 0, 0)}
        />
      </div>
    </div>
  );
}

/** The tip of the bar under the pointer: duration, tokens and cost. */
function Tip(props: { row: Row; now: number; x: number; y: number }) {
  const s = props.row.span;
  const duration = spanDuration(s, props.row.offset ? s.end_ms ?? s.start_ms : props.now);
  return (
    <div
      class="wf-tip"
      role="tooltip"
      data-testid="wf-tip"
      style={{ left: `${props.x + 12}px`, top: `${props.y + 12}px` }}
    >
      <strong>{s.label}</strong> <span class="muted">{s.type} #{s.seq}</span>
      <br />
      {formatDuration(duration)}
      {s.end_ms === null ? " so far" : ""}
      {s.tokens ? ` · ${s.tokens.input}→${s.tokens.output} tokens` : ""}
      {s.cost_usd !== null ? ` · ${formatCost(s.cost_usd)}` : ""}
      {s.kind === "replayed" ? ` · ${s.events} events` : ""}
    </div>
  );
}
