/**
 * Versions: the timeline of a harness's recorded versions, and two of them side by side (default:
 * the current one against the one before): the YAML diff, the live-run figures with their deltas
 * coloured better or worse, success rate and cost along the timeline, the eval cases of both on the
 * same set (fixed, broken, still failing), and the failure signatures that appeared or disappeared,
 * each with an example run. Restore writes a version back; "Run eval on both" measures the pair.
 *
 * @module
 */

import { useState } from "preact/hooks";
import { useAction } from "../action.ts";
import { ApiError, callApi, jsonBody } from "../api.ts";
import { Diff } from "../components/diff.tsx";
import { Empty, ErrorLine, Pending } from "../components/empty.tsx";
import { Icon } from "../components/icons.tsx";
import { Link } from "../components/link.tsx";
import { StatusBadge } from "../components/status.tsx";
import { Time } from "../components/time.tsx";
import { signatureOutcome } from "../../lib/failure_signature.ts";
import { formatCost, formatDuration, formatPercent, shortId } from "../format.ts";
import { paths } from "../paths.ts";
import { withRoute } from "../route.ts";
import { useApi, useStore } from "../store.ts";
import type { HarnessDetail } from "../types.ts";
import { LineChart } from "../components/charts.tsx";
import type { Comparison, VersionEntry } from "../../lib/evals/compare.ts";

/**
 * The Versions tab.
 *
 * @param props The harness.
 * @returns The tab.
 */
export function Versions(props: { harness: HarnessDetail }) {
  const store = useStore();
  const route = store.route.value;
  const list = useApi<{ versions: VersionEntry[] }>(paths.versions(props.harness.id));
  if (!list.data) return <Pending error={list.error} what="the versions" />;
  const versions = list.data.versions;
  if (versions.length < 2) {
    return (
      <Empty title={versions.length ? "One version so far" : "No versions yet"}>
        <p>
          Each change of <code>harness.yaml</code>{" "}
          made through the framework is a version. Change a field in Spec (or apply a proposal) and
          compare the two here.
        </p>
      </Empty>
    );
  }
  // Default: the current version (else the newest) against the distinct one before it.
  const current = versions.find((v) => v.current) ?? versions[0]!;
  const before = versions.find((v) => v.seq < current.seq && v.version !== current.version) ??
    versions.find((v) => v.version !== current.version)!;
  const b = route.query.b ?? current.version;
  const a = route.query.a ?? before.version;
  const choose = (which: "a" | "b", version: string) =>
    store.navigate(withRoute(route, { query: { [which]: version } }), { replace: true });
  return (
    <div class="versions" data-testid="versions">
      <Timeline versions={versions} a={a} b={b} onChoose={choose} />
      <CompareView harnessId={props.harness.id} a={a} b={b} set={route.query.set} />
    </div>
  );
}

function Timeline(
  props: {
    versions: VersionEntry[];
    a: string;
    b: string;
    onChoose: (which: "a" | "b", version: string) => void;
  },
) {
  return (
    <section class="timeline" aria-label="Versions, newest first">
      <Trend versions={props.versions} />
      <ol class="timeline-list">
        {props.versions.map((v) => (
          <li key={v.seq} class={v.version === props.b || v.version === props.a ? "picked" : ""}>
            <span class="mono" title={v.version}>{v.version.slice(0, 10)}</span>
            {v.current ? <span class="badge badge-ok">current</span> : null}
            <span class="badge badge-muted">{v.source}</span>
            <span class="muted small" data-testid="version-runs">
              <Time iso={v.created_at} /> · <RunCounts runs={v.runs} evalRuns={v.eval_runs} />
              {v.running ? ` · ${v.running} running` : ""}
            </span>
            <span class="pick">
              {(["a", "b"] as const).map((which) => (
                <button
                  key={which}
                  type="button"
                  class={props[which] === v.version ? "pick-on" : ""}
                  aria-pressed={props[which] === v.version}
                  title={`Compare as ${which.toUpperCase()}`}
                  data-pick={`${which}-${v.seq}`}
                  onClick={() => props.onChoose(which, v.version)}
                >
                  {which.toUpperCase()}
                </button>
              ))}
            </span>
          </li>
        ))}
      </ol>
    </section>
  );
}

/**
 * A version's run counts, the same in the timeline and in the comparison: its finished live runs
 * and its other evaluation runs (in the folder or on a copy).
 */
function RunCounts(props: { runs: number; evalRuns: number }) {
  return (
    <span title="Live runs count in its success rate, cost and turns; eval runs are the cases of its evaluations, in the folder or on a temporary copy">
      {props.runs} live · {props.evalRuns} eval {props.runs + props.evalRuns === 1 ? "run" : "runs"}
    </span>
  );
}

/**
 * Success rate per spec version (a marker at each version, oldest on the left) beside the cost per
 * run: from the timeline's figures, the same the comparison shows.
 */
function Trend(props: { versions: VersionEntry[] }) {
  const points = [...props.versions].reverse().slice(-30);
  if (!points.some((p) => p.success_rate !== null)) return null;
  const labels = points.map((p) => p.version.slice(0, 7));
  const names = points.map((p) => `${p.version.slice(0, 10)} (${p.runs} live runs)`);
  return (
    <div class="charts" data-testid="version-charts">
      <LineChart
        id="success-by-version"
        title="Success rate per version"
        label={`Success rate of the live runs of each of the last ${points.length} spec versions, oldest first`}
        xHead="Version"
        xLabels={labels}
        xNames={names}
        series={[{
          name: "success rate",
          cls: "line-rate",
          color: "var(--accent)",
          values: points.map((p) => p.success_rate),
        }]}
        format={formatPercent}
        max={1}
        markers
      />
      <LineChart
        id="cost-by-version"
        title="Cost per run per version"
        label={`Mean cost per live run of each of the last ${points.length} spec versions, oldest first`}
        xHead="Version"
        xLabels={labels}
        xNames={names}
        series={[{
          name: "cost per run",
          cls: "line-cost",
          color: "var(--ok)",
          values: points.map((p) => p.cost_usd),
        }]}
        format={formatCost}
        markers
      />
    </div>
  );
}

/** Which way is better for each figure. */
const BETTER: Record<string, "up" | "down"> = {
  success_rate: "up",
  cost_usd: "down",
  avg_turns: "down",
  p50_duration_ms: "down",
};

function CompareView(props: { harnessId: string; a: string; b: string; set?: string | undefined }) {
  const store = useStore();
  const path = paths.compare(props.harnessId, props.a, props.b, props.set);
  const compare = useApi<Comparison>(path);
  const [runEvals, running] = useAction(async () => {
    for (const version of [props.a, props.b]) {
      await callApi(
        store.fetcher,
        paths.evals(props.harnessId),
        jsonBody("POST", { version, ...(props.set ? { set: props.set } : {}) }),
      );
    }
    await store.cache.load(path, true);
    store.notify("Both versions were measured on the eval set.");
  });
  if (!compare.data) return <Pending error={compare.error} what="the comparison" />;
  const c = compare.data;
  return (
    <section class="compare" data-testid="compare">
      <header class="compare-head">
        <VersionLabel which="A" v={c.a} harnessId={props.harnessId} />
        <Icon name="chevron" />
        <VersionLabel which="B" v={c.b} harnessId={props.harnessId} />
      </header>
      <Metrics c={c} />
      <h3 class="detail-title">Eval cases {c.evals.set ? <code>{c.evals.set}</code> : null}</h3>
      <EvalGrid c={c} />
      <button
        type="button"
        onClick={() => void runEvals()}
        disabled={running}
        data-testid="run-evals"
      >
        {running ? <span class="spinner small" /> : <Icon name="send" />} Run eval on both
      </button>
      <h3 class="detail-title">Failure signatures</h3>
      <Signatures c={c} />
      <h3 class="detail-title">harness.yaml</h3>
      {c.yaml_diff.trim() ? <Diff text={c.yaml_diff} /> : <p class="muted">The same YAML.</p>}
    </section>
  );
}

function VersionLabel(
  props: { which: string; v: Comparison["a"]; harnessId: string },
) {
  const store = useStore();
  const [error, setError] = useState<string | null>(null);
  const [confirm, setConfirm] = useState<string[] | null>(null);
  const [restore, restoring] = useAction(async (confirmFrozen: boolean) => {
    setError(null);
    try {
      // A frozen field is asked about before the restore is sent (the server would refuse it).
      if (!confirmFrozen) {
        const { frozen_changed } = await callApi<{ frozen_changed: string[] }>(
          store.fetcher,
          paths.restoreFrozenChanges(props.harnessId, props.v.version),
        );
        if (frozen_changed.length) {
          setConfirm(frozen_changed);
          return;
        }
      }
      const r = await callApi<{ changed: boolean }>(
        store.fetcher,
        paths.restore(props.harnessId, props.v.version),
        jsonBody("POST", confirmFrozen ? { confirm_frozen: true } : {}),
      );
      setConfirm(null);
      store.cache.refresh(paths.harness(props.harnessId));
      store.notify(
        r.changed ? `Restored ${props.v.version.slice(0, 10)}.` : "Already this version.",
      );
    } catch (err) {
      if (err instanceof ApiError && err.status === 403 && err.details.frozen_root) {
        setConfirm([String(err.details.frozen_root)]);
      } else setError(err instanceof ApiError ? err.message : String(err));
    }
  });
  return (
    <div class="version-label" data-version={props.v.version}>
      <strong>{props.which}</strong> <code>{props.v.version.slice(0, 10)}</code>
      <span class="muted small">
        {props.v.source} · <Time iso={props.v.created_at} />
      </span>
      <button
        type="button"
        class="small-button"
        disabled={restoring}
        data-testid={`restore-${props.which.toLowerCase()}`}
        onClick={() => void restore(false)}
      >
        Restore
      </button>
      {confirm
        ? (
          <span class="confirm-frozen" role="alert">
            It changes {confirm.length > 1 ? "frozen fields" : "a frozen field"}{" "}
            (<code>{confirm.join(", ")}</code>).{" "}
            <button type="button" class="danger" onClick={() => void restore(true)}>
              Restore anyway
            </button>
          </span>
        )
        : null}
      <ErrorLine error={error} />
    </div>
  );
}

/** A delta with its sign, in the figure's own unit. */
function deltaText(key: string, d: number | null): string {
  if (d === null) return "—";
  if (d === 0) return "no change";
  const sign = d > 0 ? "+" : d < 0 ? "−" : "";
  const m = Math.abs(d);
  const shown = key === "success_rate"
    ? formatPercent(m)
    : key === "cost_usd"
    ? formatCost(m)
    : key === "p50_duration_ms"
    ? formatDuration(m)
    : String(Number(m.toFixed(2)));
  return sign + shown;
}

function Metrics(props: { c: Comparison }) {
  const { a, b, delta } = props.c.metrics;
  const rows: [keyof typeof a, string, (v: number | null) => string][] = [
    ["runs", "live runs", (v) => (v === null ? "—" : String(v))],
    ["eval_runs", "eval runs", (v) => (v === null ? "—" : String(v))],
    ["success_rate", "success rate", formatPercent],
    ["cost_usd", "cost per run", formatCost],
    ["avg_turns", "turns", (v) => (v === null ? "—" : v.toFixed(2))],
    ["p50_duration_ms", "p50 duration", formatDuration],
  ];
  return (
    <div class="metric-cards">
      {rows.map(([key, label, show]) => {
        const d = delta[key];
        const way = BETTER[key];
        const tone = d === null || d === 0 || !way
          ? "same"
          : (d > 0) === (way === "up")
          ? "better"
          : "worse";
        return (
          <div key={key} class={`metric-card ${tone}`} data-metric={key}>
            <span class="metric-label">{label}</span>
            <span class="metric-values">
              {show(a[key])} → <strong>{show(b[key])}</strong>
            </span>
            <span class="metric-delta" data-tone={tone}>{deltaText(key, d)}</span>
          </div>
        );
      })}
    </div>
  );
}

function EvalGrid(props: { c: Comparison }) {
  const { cases, a, b } = props.c.evals;
  if (!cases.length) {
    return (
      <p class="muted">
        No evaluation of these versions yet. Write <code>evals/&lt;set&gt;.yaml</code>{" "}
        and run it on both.
      </p>
    );
  }
  const cell = (v: boolean | null) => (v === null ? "—" : v ? "pass" : "fail");
  /** A case's result: pass or fail, and for a fail the checks that failed, as `framework eval` says. */
  const result = (evaluation: typeof a, caseId: string, passed: boolean | null) => {
    const failed = passed === false
      ? evaluation?.cases.find((c) => c.case_id === caseId)?.checks.filter((k) => !k.passed) ?? []
      : [];
    return (
      <td class={`case-${cell(passed)}`}>
        {cell(passed)}
        {failed.map((k, i) => (
          <span key={i} class="case-check" data-check={k.name}>
            <code>{k.name}</code> {k.message}
          </span>
        ))}
      </td>
    );
  };
  return (
    <table class="table eval-grid">
      <thead>
        <tr>
          <th>Case</th>
          <th>A {a ? formatPercent(a.pass_rate) : ""}</th>
          <th>B {b ? formatPercent(b.pass_rate) : ""}</th>
          <th>Change</th>
        </tr>
      </thead>
      <tbody>
        {cases.map((x) => (
          <tr key={x.case_id} data-case={x.case_id} data-change={x.change}>
            <td>
              <code>{x.case_id}</code>
            </td>
            {result(a, x.case_id, x.a)}
            {result(b, x.case_id, x.b)}
            <td class={`change change-${x.change}`}>{x.change.replace(/_/g, " ")}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Signatures(props: { c: Comparison }) {
  const route = useStore().route.value;
  const { appeared, disappeared, kept } = props.c.signatures;
  if (!appeared.length && !disappeared.length && !kept.length) {
    return <p class="muted">No failures in either version.</p>;
  }
  const link = (run: string | null) =>
    run
      ? (
        <Link to={withRoute(route, { tab: "trace", run })} class="mono small">
          {shortId(run)}
        </Link>
      )
      : null;
  return (
    <ul class="signature-changes">
      {appeared.map((s) => (
        <li key={`+${s.signature}`} class="sig-appeared" data-signature={s.signature}>
          <span class="badge badge-bad">appeared</span> <Stopped signature={s.signature} />
          <code>{s.signature}</code> × {s.count_b} {link(s.example_run_b)}
        </li>
      ))}
      {disappeared.map((s) => (
        <li key={`-${s.signature}`} class="sig-disappeared" data-signature={s.signature}>
          <span class="badge badge-ok">disappeared</span> <Stopped signature={s.signature} />
          <code>{s.signature}</code> × {s.count_a} {link(s.example_run_a)}
        </li>
      ))}
      {kept.map((s) => (
        <li key={`=${s.signature}`} data-signature={s.signature}>
          <span class="badge badge-muted">kept</span> <Stopped signature={s.signature} />
          <code>{s.signature}</code> {s.count_a} → {s.count_b} {link(s.example_run_b)}
        </li>
      ))}
    </ul>
  );
}

/** Says a signature is of stopped runs (someone stopped them: not a failure of the version). */
function Stopped(props: { signature: string }) {
  return signatureOutcome(props.signature) === "stopped" ? <StatusBadge status="stopped" /> : null;
}
