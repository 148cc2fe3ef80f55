/**
 * Charts drawn as SVG here (no chart library): stacked bars of runs per day by status, lines of
 * values over days or versions (with a marker per version). Each chart is an image with a label
 * saying what it shows, and the table of its figures sits behind it, so a screen reader and a test
 * read the same numbers the picture draws.
 *
 * @module
 */

import type { ComponentChildren } from "preact";
import { RUN_STATUSES, type RunStatus } from "../../lib/run_types.ts";

const W = 640;
const H = 160;
const PAD = { left: 56, right: 8, top: 8, bottom: 22 };

/** A labelled chart with its figures behind it. */
function ChartFigure(props: {
  id: string;
  title: string;
  label: string;
  keys?: { name: string; color: string }[];
  table: { head: string[]; rows: (string | number)[][] };
  children: ComponentChildren;
}) {
  return (
    <figure class="chart" data-chart={props.id}>
      <figcaption>{props.title}</figcaption>
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={props.label}>
        {props.children}
      </svg>
      {props.keys
        ? (
          <div class="chart-keys" aria-hidden="true">
            {props.keys.map((k) => (
              <span key={k.name} class="chart-key" style={{ color: k.color }}>{k.name}</span>
            ))}
          </div>
        )
        : null}
      <details class="chart-table">
        <summary>Figures</summary>
        <table class="table" data-testid={`${props.id}-table`}>
          <thead>
            <tr>{props.table.head.map((h) => <th key={h}>{h}</th>)}</tr>
          </thead>
          <tbody>
            {props.table.rows.map((r, i) => (
              <tr key={i}>{r.map((c, k) => <td key={k} class={k ? "num" : ""}>{c}</td>)}</tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}

/** The y axis: a few grid lines with their values. */
function YAxis(props: { max: number; format: (v: number) => string }) {
  const ticks = [0, 0.5, 1].map((f) => f * props.max);
  return (
    <>
      {ticks.map((t) => {
        const y = yOf(t, props.max);
        return (
          <g key={t}>
            <line class="grid" x1={PAD.left} x2={W - PAD.right} y1={y} y2={y} />
            <text x={PAD.left - 4} y={y + 3} text-anchor="end">{props.format(t)}</text>
          </g>
        );
      })}
    </>
  );
}

/** The x axis labels: at most about eight, evenly spread. */
function XLabels(props: { labels: string[] }) {
  const n = props.labels.length;
  const every = Math.max(1, Math.ceil(n / 8));
  return (
    <>
      {props.labels.map((l, i) =>
        (n - 1 - i) % every === 0
          ? (
            <text key={i} x={xOf(i, n)} y={H - 6} text-anchor="middle">
              {l}
            </text>
          )
          : null
      )}
    </>
  );
}

function xOf(i: number, n: number): number {
  const w = W - PAD.left - PAD.right;
  return PAD.left + (n <= 1 ? w / 2 : (w * (i + 0.5)) / n);
}

function yOf(v: number, max: number): number {
  const h = H - PAD.top - PAD.bottom;
  return PAD.top + h - (max > 0 ? (v / max) * h : 0);
}

const STATUS_COLOR: Record<RunStatus, string> = {
  success: "var(--ok)",
  verify_failed: "var(--warn)",
  max_turns: "var(--warn)",
  guardrail_halt: "#c2410c",
  error: "var(--bad)",
};

/**
 * Runs per day, stacked by status.
 *
 * @param props The days (oldest first), each with its counts by status.
 * @returns The chart.
 */
export function RunsPerDayChart(
  props: { days: { day: string; by_status: Record<RunStatus, number>; total: number }[] },
) {
  const n = props.days.length;
  // An even top, so the middle grid line is a whole number of runs.
  const max = Math.max(2, Math.ceil(Math.max(...props.days.map((d) => d.total)) / 2) * 2);
  const bw = Math.max(2, ((W - PAD.left - PAD.right) / Math.max(1, n)) * 0.7);
  const total = props.days.reduce((s, d) => s + d.total, 0);
  return (
    <ChartFigure
      id="runs-per-day"
      title="Runs per day by status"
      label={`Runs per day by status, ${props.days[0]?.day} to ${
        props.days.at(-1)?.day
      }: ${total} runs`}
      keys={RUN_STATUSES.map((s) => ({ name: s, color: STATUS_COLOR[s] }))}
      table={{
        head: ["Day", ...RUN_STATUSES, "Total"],
        rows: props.days.filter((d) => d.total).map((d) => [
          d.day,
          ...RUN_STATUSES.map((s) => d.by_status[s]),
          d.total,
        ]),
      }}
    >
      <YAxis max={max} format={(v) => String(Math.round(v))} />
      {props.days.map((d, i) => {
        let base = 0;
        return (
          <g key={d.day}>
            {RUN_STATUSES.filter((s) => d.by_status[s]).map((s) => {
              const y0 = yOf(base, max);
              base += d.by_status[s];
              const y1 = yOf(base, max);
              return (
                <rect
                  key={s}
                  class={`fill-${s}`}
                  x={xOf(i, n) - bw / 2}
                  y={y1}
                  width={bw}
                  height={Math.max(0, y0 - y1)}
                >
                  <title>{`${d.day}: ${d.by_status[s]} ${s}`}</title>
                </rect>
              );
            })}
          </g>
        );
      })}
      <XLabels labels={props.days.map((d) => d.day.slice(5))} />
    </ChartFigure>
  );
}

/** One line of a {@link LineChart}. */
export interface Series {
  name: string;
  /** The line's CSS class (its colour). */
  cls: string;
  color: string;
  values: (number | null)[];
}

/**
 * Lines of values over days or versions; gaps where a value is missing. With `markers`, each point
 * has a dot and a dashed marker line (a version).
 *
 * @param props What it shows, the x labels, the series and how values read.
 * @returns The chart.
 */
export function LineChart(props: {
  id: string;
  title: string;
  label: string;
  xLabels: string[];
  /** The first column of the table (the x labels in full). */
  xNames?: string[];
  xHead: string;
  series: Series[];
  format: (v: number) => string;
  max?: number;
  markers?: boolean;
}) {
  const n = props.xLabels.length;
  // All zeros (free runs, say) still get a readable axis: 0 to 1 of the unit.
  const top = Math.max(
    0,
    ...props.series.flatMap((s) => s.values.filter((v) => v !== null) as number[]),
  );
  const max = props.max ?? (top > 0 ? top : 1);
  const names = props.xNames ?? props.xLabels;
  return (
    <ChartFigure
      id={props.id}
      title={props.title}
      label={props.label}
      keys={props.series.map((s) => ({ name: s.name, color: s.color }))}
      table={{
        head: [props.xHead, ...props.series.map((s) => s.name)],
        rows: names.map((x, i) => [x, ...props.series.map((s) => fmtOr(s.values[i], props.format))])
          .filter((r) => r.slice(1).some((c) => c !== "—")),
      }}
    >
      <YAxis max={max} format={props.format} />
      {props.markers
        ? props.xLabels.map((_, i) => (
          <line
            key={i}
            class="marker"
            x1={xOf(i, n)}
            x2={xOf(i, n)}
            y1={PAD.top}
            y2={H - PAD.bottom}
          />
        ))
        : null}
      {props.series.map((s) => (
        <g key={s.name}>
          {segments(s.values).map((seg, k) => (
            <polyline
              key={k}
              class={s.cls}
              points={seg.map((i) => `${xOf(i, n).toFixed(1)},${yOf(s.values[i]!, max).toFixed(1)}`)
                .join(" ")}
            />
          ))}
          {s.values.map((v, i) =>
            v === null ? null : (
              <circle
                key={i}
                class={props.markers ? "dot-rate" : ""}
                style={props.markers ? undefined : { fill: s.color }}
                cx={xOf(i, n)}
                cy={yOf(v, max)}
                r={props.markers ? 4 : 2.5}
              >
                <title>{`${names[i]}: ${s.name} ${props.format(v)}`}</title>
              </circle>
            )
          )}
        </g>
      ))}
      <XLabels labels={props.xLabels} />
    </ChartFigure>
  );
}

/** Runs of consecutive indexes with a value (a line is broken where one is missing). */
function segments(values: (number | null)[]): number[][] {
  const out: number[][] = [];
  let cur: number[] = [];
  values.forEach((v, i) => {
    if (v === null) {
      if (cur.length) out.push(cur);
      cur = [];
    } else cur.push(i);
  });
  if (cur.length) out.push(cur);
  return out;
}

function fmtOr(v: number | null | undefined, format: (v: number) => string): string {
  return v === null || v === undefined ? "—" : format(v);
}
