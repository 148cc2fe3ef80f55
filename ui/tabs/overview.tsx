/**
 * Overview: who the harness is (name, id, model, spec version, evolved counter), how it does (success
 * rate, cost, turns, duration, outcomes) and what goes wrong (recent failures grouped by signature).
 *
 * @module
 */

import { RUN_STATUSES } from "../../lib/run_types.ts";
import { useState } from "preact/hooks";
import { useAction } from "../action.ts";
import { callApi } from "../api.ts";
import { Empty, Pending } from "../components/empty.tsx";
import { Link } from "../components/link.tsx";
import { StatusBadge } from "../components/status.tsx";
import { signatureOutcome } from "../../lib/failure_signature.ts";
import { Time } from "../components/time.tsx";
import { formatCost, formatDuration, formatPercent, shortId } from "../format.ts";
import { paths } from "../paths.ts";
import { withRoute } from "../route.ts";
import { useApi, useStore } from "../store.ts";
import type { HarnessDetail } from "../types.ts";
import type { HarnessCharts } from "../../lib/hive/charts.ts";
import { LineChart, RunsPerDayChart } from "../components/charts.tsx";

/**
 * The Overview tab.
 *
 * @param props The harness.
 * @returns The tab.
 */
export function Overview(props: { harness: HarnessDetail }) {
  const h = props.harness;
  const s = h.stats.runs;
  return (
    <div class="overview" data-testid="overview">
      <Facts harness={h} />

      {h.trusted || !hasCode(h.spec) ? null : <TrustNote harness={h} />}

      <div class="metrics">
        <Metric label="Success rate" value={formatPercent(s.success_rate)} />
        <Metric
          label="Runs"
          value={String(s.total)}
          note={s.running ? `${s.running} running` : undefined}
        />
        <Metric label="Cost (all runs)" value={formatCost(s.cost_usd)} />
        <Metric label="Average turns" value={s.avg_turns === null ? "—" : s.avg_turns.toFixed(1)} />
        <Metric label="Median duration" value={formatDuration(s.p50_duration_ms)} />
      </div>

      {s.total ? <Outcomes harness={h} /> : null}
      {s.total ? <OverviewCharts harnessId={h.id} /> : null}

      <h2 class="section-title">Recent failures by signature</h2>
      <FailureGroups harness={h} />
      {((h.spec?.mcp_servers as unknown[] | undefined) ?? []).length
        ? <McpServers harnessId={h.id} servers={h.spec!.mcp_servers as { name: string }[]} />
        : null}
      {h.peers.length ? <Peers harness={h} /> : null}
    </div>
  );
}

/**
 * The history of the runs of the last 30 days: runs per day by status; cost per run and the p50
 * and p95 durations per day.
 */
function OverviewCharts(props: { harnessId: string }) {
  const charts = useApi<HarnessCharts>(paths.charts(props.harnessId));
  if (!charts.data) return <Pending error={charts.error} what="the charts" />;
  const c = charts.data;
  const days = c.cost_duration.map((d) => d.day.slice(5));
  const range = `${c.from} to ${c.to} (UTC)`;
  return (
    <div class="charts" data-testid="overview-charts">
      <RunsPerDayChart days={c.runs_per_day} />
      <LineChart
        id="cost-per-run"
        title="Cost per run"
        label={`Mean cost per run by day, ${range}`}
        xHead="Day"
        xLabels={days}
        xNames={c.cost_duration.map((d) => d.day)}
        series={[{
          name: "cost per run",
          cls: "line-cost",
          color: "var(--ok)",
          values: c.cost_duration.map((d) => d.cost_per_run_usd),
        }]}
        format={formatCost}
      />
      <LineChart
        id="duration"
        title="Duration, p50 and p95"
        label={`Median and 95th percentile run duration by day, ${range}`}
        xHead="Day"
        xLabels={days}
        xNames={c.cost_duration.map((d) => d.day)}
        series={[
          {
            name: "p50",
            cls: "line-p50",
            color: "var(--accent)",
            values: c.cost_duration.map((d) => d.p50_duration_ms),
          },
          {
            name: "p95",
            cls: "line-p95",
            color: "var(--warn)",
            values: c.cost_duration.map((d) => d.p95_duration_ms),
          },
        ]}
        format={formatDuration}
      />
    </div>
  );
}

/** Who the harness is: name, id, model, spec version, how often it evolved, its folder. */
function Facts(props: { harness: HarnessDetail }) {
  const h = props.harness;
  const model = h.spec?.model as { provider?: string; name?: string } | undefined;
  const version = h.spec_version;
  return (
    <dl class="facts">
      <div>
        <dt>Name</dt>
        <dd>{(h.spec?.name as string) ?? h.id}</dd>
      </div>
      <div>
        <dt>Id</dt>
        <dd>
          <code>{h.id}</code>
        </dd>
      </div>
      <div>
        <dt>Model</dt>
        <dd>
          <code>{model ? `${model.provider}:${model.name ?? "—"}` : "—"}</code>
        </dd>
      </div>
      <div>
        <dt>Spec version</dt>
        <dd>
          <code title={version ?? ""}>{version ? version.slice(0, 12) : "—"}</code>
          {h.spec_drift && h.newest_spec_version
            ? (
              <span
                class="badge badge-warn spec-drift"
                data-testid="spec-drift"
                title={`The hive records a newer version of ${h.id}, ${h.newest_spec_version}, applied through another process; this folder is older. Update it (copy harness.yaml from the host that applied it) to stop the drift.`}
              >
                behind the hive: newest {h.newest_spec_version.slice(0, 12)}
              </span>
            )
            : null}
        </dd>
      </div>
      <div>
        <dt>Evolved</dt>
        <dd>{h.evolved} {h.evolved === 1 ? "proposal" : "proposals"} applied</dd>
      </div>
      <div>
        <dt>Folder</dt>
        <dd>
          <code class="path" title={h.dir}>{h.dir}</code>
        </dd>
      </div>
    </dl>
  );
}

/** How the runs ended: a bar of the statuses, and a legend that opens Runs filtered by each. */
function Outcomes(props: { harness: HarnessDetail }) {
  const route = useStore().route.value;
  const s = props.harness.stats.runs;
  return (
    <div class="outcomes" aria-label="Outcomes">
      <div
        class="bar"
        role="img"
        aria-label={RUN_STATUSES.map((k) => `${k} ${s.by_status[k]}`).join(", ")}
      >
        {RUN_STATUSES.filter((k) => s.by_status[k]).map((k) => (
          <span key={k} class={`bar-seg seg-${k}`} style={{ flexGrow: s.by_status[k] }} />
        ))}
      </div>
      <ul class="legend">
        {RUN_STATUSES.map((k) => (
          <li key={k}>
            <Link to={withRoute(route, { tab: "runs", query: { status: k } })}>
              <StatusBadge status={k} /> {s.by_status[k]}
            </Link>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** The recent failures grouped by signature, each with its latest run; or why there are none. */
function FailureGroups(props: { harness: HarnessDetail }) {
  const route = useStore().route.value;
  const h = props.harness;
  if (h.stats.failure_groups.length) {
    return (
      <table class="table">
        <thead>
          <tr>
            <th>Signature</th>
            <th class="num">Runs</th>
            <th>Last seen</th>
            <th>Latest run</th>
          </tr>
        </thead>
        <tbody>
          {h.stats.failure_groups.map((g) => (
            <tr key={g.signature} data-signature={g.signature}>
              <td>
                <StatusBadge status={signatureOutcome(g.signature)} /> <code>{g.signature}</code>
              </td>
              <td class="num">{g.count}</td>
              <td>
                <Time iso={g.last_ended_at} />
              </td>
              <td>
                <Link to={withRoute(route, { tab: "trace", run: g.last_run_id })} class="mono">
                  {shortId(g.last_run_id)}
                </Link>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    );
  }
  if (h.stats.runs.total) return <p class="muted">No failures among the recent runs.</p>;
  return (
    <Empty title="No runs yet">
      <p>
        Ask the copilot to run it (“Run it with ‘hello’”), or from a terminal:{" "}
        <code>framework run {h.dir} --input "hello"</code>.
      </p>
    </Empty>
  );
}

/** The peers the harness may delegate to, with their fitness (and why one is not eligible). */
function Peers(props: { harness: HarnessDetail }) {
  return (
    <section class="peers" data-testid="peers">
      <h3 class="detail-title">Peers it may delegate to</h3>
      <ul>
        {props.harness.peers.map((p) => (
          <li key={p.peer} data-peer={p.peer}>
            <strong>{p.peer}</strong>
            {p.url ? <span class="muted small" data-testid="a2a-peer">A2A</span> : null}{" "}
            {formatPercent(p.fitness.success_rate)} over {p.fitness.runs}{" "}
            {p.url ? "hand-offs" : "runs"}
            {p.eligible ? "" : <span class="muted small">· {p.reason}</span>}
          </li>
        ))}
      </ul>
    </section>
  );
}

function Metric(props: { label: string; value: string; note?: string | undefined }) {
  return (
    <div class="metric">
      <p class="metric-value">{props.value}</p>
      <p class="metric-label">
        {props.label}
        {props.note ? <span class="muted">· {props.note}</span> : null}
      </p>
    </div>
  );
}

function TrustNote(props: { harness: HarnessDetail }) {
  const store = useStore();
  const [trust, busy] = useAction(async () => {
    await callApi(store.fetcher, paths.trust(props.harness.id), { method: "POST" });
    store.cache.refresh(paths.harness(props.harness.id));
    store.notify(`Trusted ${props.harness.dir}`);
  });
  return (
    <div class="banner banner-info" role="note">
      This folder is not trusted: runs refuse its code tools, guardrails, validators and hooks.
      Trust it only if you know its code.{" "}
      <button type="button" onClick={trust} disabled={busy}>Trust this folder</button>
    </div>
  );
}

/** Whether a spec names code (`code:` refs), which runs only in trusted folders. */
function hasCode(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasCode);
  if (value && typeof value === "object") {
    return Object.entries(value).some(([k, v]) =>
      (k === "code" && typeof v === "string") || hasCode(v)
    );
  }
  return false;
}

interface ServerToolsView {
  server: string;
  tools: string[];
  error?: string;
  warnings: string[];
}

/** The harness's MCP servers; Connect starts each once to list its tools. */
function McpServers(props: { harnessId: string; servers: { name: string }[] }) {
  const store = useStore();
  const [listed, setListed] = useState<ServerToolsView[] | null>(null);
  const [connect, connecting] = useAction(async () => {
    setListed(
      (await callApi<{ servers: ServerToolsView[] }>(store.fetcher, paths.mcp(props.harnessId), {
        method: "POST",
      })).servers,
    );
  });
  return (
    <section class="mcp-servers" data-testid="mcp-servers">
      <h3 class="detail-title">MCP servers</h3>
      <ul>
        {props.servers.map((s) => {
          const found = listed?.find((x) => x.server === s.name);
          return (
            <li key={s.name} data-server={s.name}>
              <strong>{s.name}</strong> {found
                ? found.error
                  ? <span class="field-error">{found.error}</span>
                  : <span class="muted small">{found.tools.join(", ") || "no tools"}</span>
                : null}
            </li>
          );
        })}
      </ul>
      <button type="button" onClick={() => void connect()} disabled={connecting}>
        {connecting ? "Connecting…" : "Connect and list tools"}
      </button>
    </section>
  );
}
