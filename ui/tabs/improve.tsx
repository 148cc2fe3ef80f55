/**
 * Improve: the proposal queue and the human gate. Each proposal shows its rationale, evidence and
 * diffs; applying is its own action, where the YAML changes apply only when ticked and each code
 * change only when selected (nothing is ticked at first); rejecting asks for a reason.
 *
 * @module
 */

import { PROPOSAL_STATUSES } from "../../lib/proposal_status.ts";
import { useAction } from "../action.ts";
import { useState } from "preact/hooks";
import { ApiError, callApi, jsonBody } from "../api.ts";
import { Diff } from "../components/diff.tsx";
import { Empty, ErrorLine, Pending } from "../components/empty.tsx";
import { Icon } from "../components/icons.tsx";
import { Link } from "../components/link.tsx";
import { Segmented, statusChoices } from "../components/segmented.tsx";
import { StatusBadge } from "../components/status.tsx";
import { Time } from "../components/time.tsx";
import { formatCost, formatPercent, oneLine, shortId } from "../format.ts";
import { paths } from "../paths.ts";
import { withRoute } from "../route.ts";
import { useApi, useStore } from "../store.ts";
import type { HarnessDetail, Proposal } from "../types.ts";

const FILTERS = ["", ...PROPOSAL_STATUSES];

/**
 * The Improve tab.
 *
 * @param props The harness.
 * @returns The tab.
 */
export function Improve(props: { harness: HarnessDetail }) {
  const store = useStore();
  const route = store.route.value;
  const status = route.query.status ?? "";
  const list = useApi<{ proposals: Proposal[] }>(paths.proposals(props.harness.id, status));
  const proposals = list.data?.proposals ?? [];
  const chosen = proposals.find((p) => p.id === route.query.p) ?? proposals[0];

  return (
    <div class="improve" data-testid="improve">
      <div class="toolbar">
        <Segmented
          label="Filter by status"
          choices={statusChoices(FILTERS)}
          current={status}
          to={(f) => withRoute(route, { query: { status: f, p: "" } })}
        />
        <DraftForm harness={props.harness} />
      </div>
      {!list.data
        ? <Pending error={list.error} what="the proposals" />
        : !proposals.length
        ? (
          <Empty title={status ? `No ${status.replace(/_/g, " ")} proposals` : "No proposals yet"}>
            <p>
              Ask the copilot to propose an improvement, press “Draft a proposal” (saying what to
              improve, if you like), or run{" "}
              <code>framework evolve propose {props.harness.dir}</code>. Proposals wait here until
              you apply or reject them.
            </p>
          </Empty>
        )
        : (
          <div class="improve-split">
            <ul class="proposal-list" aria-label="Proposals">
              {proposals.map((p) => (
                <li key={p.id}>
                  <Link
                    to={withRoute(route, { query: { p: p.id } })}
                    class={p.id === chosen?.id ? "proposal-item active" : "proposal-item"}
                    aria-current={p.id === chosen?.id ? "true" : undefined}
                    data-proposal={p.id}
                  >
                    <span class="row">
                      <StatusBadge status={p.status} /> <Time iso={p.created_at} />
                    </span>
                    <span class="proposal-rationale">{oneLine(p.rationale, 90)}</span>
                    <span class="muted small">
                      {p.yaml_changes.length} YAML · {p.code_changes.length} code · {p.trigger}
                    </span>
                  </Link>
                </li>
              ))}
            </ul>
            {chosen
              ? (
                <ProposalView
                  key={chosen.id + chosen.updated_at}
                  proposal={chosen}
                  harness={props.harness}
                />
              )
              : null}
          </div>
        )}
    </div>
  );
}

/** Asks the evolver for a proposal, aimed at an objective when one is written. */
function DraftForm(props: { harness: HarnessDetail }) {
  const store = useStore();
  const [objective, setObjective] = useState("");
  const [draft, busy] = useAction(async () => {
    const aim = objective.trim();
    const p = await callApi<Proposal>(
      store.fetcher,
      paths.proposals(props.harness.id),
      jsonBody("POST", aim ? { objective: aim } : {}),
    );
    setObjective("");
    store.cache.refresh(paths.proposals(props.harness.id));
    store.navigate(withRoute(store.route.value, { query: { status: "", p: p.id } }));
    store.notify("A proposal was drafted and queued. Nothing is applied until you decide.");
  });
  return (
    <form
      class="draft-form"
      aria-label="Draft a proposal"
      onSubmit={(e) => {
        e.preventDefault();
        if (!busy) void draft();
      }}
    >
      <input
        name="objective"
        value={objective}
        maxLength={2000}
        aria-label="Objective of the proposal (optional)"
        placeholder="What to improve (optional)"
        onInput={(e) => setObjective((e.target as HTMLInputElement).value)}
      />
      <button
        type="submit"
        disabled={busy}
        title="Ask the harness's evolver for a proposal, aimed at the objective when you give one"
      >
        {busy ? <span class="spinner small" /> : <Icon name="plus" />} Draft a proposal
      </button>
    </form>
  );
}

/** One proposal: what it changes and why, and the gate when it is still open. */
function ProposalView(props: { proposal: Proposal; harness: HarnessDetail }) {
  const p = props.proposal;
  const open = p.status === "queued" ||
    (p.status === "partially_applied" && p.code_changes.some((c) => c.status === "pending"));
  const [applyYaml, setApplyYaml] = useState(false);
  const [approved, setApproved] = useState<Set<string>>(new Set());
  return (
    <article class="proposal" data-proposal-id={p.id}>
      <ProposalHead proposal={p} />
      <h3 class="detail-title">Rationale</h3>
      <p class="rationale">{p.rationale}</p>
      <Evidence proposal={p} />
      <YamlChanges
        proposal={p}
        open={open}
        applyYaml={applyYaml}
        onApplyYaml={setApplyYaml}
      />
      <CodeChanges proposal={p} open={open} approved={approved} onApproved={setApproved} />
      {open && p.yaml_changes.some((c) => c.status === "pending") ? <Measure proposal={p} /> : null}
      {open
        ? <Decide proposal={p} applyYaml={applyYaml} approved={approved} />
        : p.decided_at
        ? (
          <p class="muted">
            Decided <Time iso={p.decided_at} />
            {p.reason ? <>— “{p.reason}”</> : null}
          </p>
        )
        : null}
    </article>
  );
}

function ProposalHead(props: { proposal: Proposal }) {
  const p = props.proposal;
  return (
    <>
      <header class="proposal-head">
        <h2>
          <code>{p.id}</code>
        </h2>
        <StatusBadge status={p.status} />
        <span class="muted small">
          {p.trigger} · <Time iso={p.created_at} /> · evolver {p.evolver.provider}:{p.evolver.model}
          {" "}
          ({formatCost(p.evolver.cost_usd)})
        </span>
      </header>
      {p.objective
        ? (
          <p>
            <strong>Objective</strong> {p.objective}
          </p>
        )
        : null}
    </>
  );
}

/** The runs the evolver looked at and the failure signatures, each linked to its traces. */
function Evidence(props: { proposal: Proposal }) {
  const route = useStore().route.value;
  const { runs, failure_signatures } = props.proposal.evidence;
  return (
    <>
      <h3 class="detail-title">Evidence</h3>
      <div class="evidence">
        <p class="muted">
          {runs.total} {runs.total === 1 ? "run" : "runs"} looked at
          {Object.entries(runs.by_status).filter(([, n]) => n).map(([k, n]) =>
            ` · ${n} ${k.replace(/_/g, " ")}`
          ).join("")}
        </p>
        {failure_signatures.length
          ? (
            <ul class="signatures">
              {failure_signatures.map((f) => (
                <li key={f.signature}>
                  <code>{f.signature}</code> × {f.count} {f.run_ids.slice(0, 3).map((id) => (
                    <Link
                      key={id}
                      to={withRoute(route, { tab: "trace", run: id })}
                      class="mono small"
                    >
                      {shortId(id)}
                    </Link>
                  ))}
                </li>
              ))}
            </ul>
          )
          : <p class="muted">No failure signatures.</p>}
      </div>
    </>
  );
}

/** The YAML changes, and the one tick that applies the pending ones. */
function YamlChanges(
  props: {
    proposal: Proposal;
    open: boolean;
    applyYaml: boolean;
    onApplyYaml: (on: boolean) => void;
  },
) {
  const changes = props.proposal.yaml_changes;
  const pending = changes.filter((c) => c.status === "pending").length;
  return (
    <>
      <h3 class="detail-title">YAML changes</h3>
      {changes.length
        ? (
          <table class="table yaml-changes">
            <thead>
              <tr>
                <th>Path</th>
                <th>Change</th>
                <th>Status</th>
              </tr>
            </thead>
            <tbody>
              {changes.map((c, i) => (
                <tr key={i}>
                  <td>
                    <code>{c.path}</code>
                  </td>
                  <td class="yaml-change">
                    <ChangeValues change={c} />
                  </td>
                  <td>
                    <StatusBadge status={c.status} />
                    {c.reason ? <span class="muted small">{c.reason}</span> : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )
        : <p class="muted">None.</p>}
      {props.open && pending
        ? (
          <label class="check">
            <input
              type="checkbox"
              name="apply_yaml"
              checked={props.applyYaml}
              onChange={(e) => props.onApplyYaml((e.target as HTMLInputElement).checked)}
            />
            Apply the YAML changes ({pending})
          </label>
        )
        : null}
    </>
  );
}

/**
 * What a YAML change does: old → new when the proposal recorded the old value at draft time, else
 * the new value alone (older proposals, and blocked changes whose old value is not copied).
 */
function ChangeValues(props: { change: Proposal["yaml_changes"][number] }) {
  const c = props.change;
  const after = c.op === "remove"
    ? <em>removed</em>
    : <code class="change-new" title={fullText(c.value)}>{oneLine(c.value, 60)}</code>;
  if (!("old" in c)) return c.op === "remove" ? <em>remove</em> : after;
  return (
    <span class="change-values">
      {c.old === null
        ? <em class="muted">unset</em>
        : <code class="change-old" title={fullText(c.old)}>{oneLine(c.old, 60)}</code>}{" "}
      <span aria-label="becomes">→</span> {after}
    </span>
  );
}

/** A value whole, for a title: text as it is, anything else as JSON. */
function fullText(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value) ?? "";
}

/** Each code change with its diff; a pending one is approved by its own tick. */
function CodeChanges(
  props: {
    proposal: Proposal;
    open: boolean;
    approved: Set<string>;
    onApproved: (next: Set<string>) => void;
  },
) {
  const { approved } = props;
  return (
    <>
      <h3 class="detail-title">Code changes</h3>
      {props.proposal.code_changes.length
        ? props.proposal.code_changes.map((c) => (
          <div key={c.id} class="code-change" data-change={c.id}>
            <div class="code-change-head">
              {props.open && c.status === "pending"
                ? (
                  <label class="check">
                    <input
                      type="checkbox"
                      name={`approve-${c.id}`}
                      checked={approved.has(c.id)}
                      onChange={(e) => {
                        const next = new Set(approved);
                        if ((e.target as HTMLInputElement).checked) next.add(c.id);
                        else next.delete(c.id);
                        props.onApproved(next);
                      }}
                    />
                    Approve <code>{c.path}</code>
                  </label>
                )
                : <code>{c.path}</code>}
              <StatusBadge status={c.status} />
              {c.reason ? <span class="muted small">{c.reason}</span> : null}
            </div>
            <Diff text={c.diff} />
          </div>
        ))
        : <p class="muted">None.</p>}
    </>
  );
}

/** The gate: apply what is ticked, or reject with a reason. */
function Decide(props: { proposal: Proposal; applyYaml: boolean; approved: Set<string> }) {
  const store = useStore();
  const { proposal: p, applyYaml, approved } = props;
  const [reason, setReason] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const decide = async (action: "apply" | "reject") => {
    setBusy(true);
    setError(null);
    try {
      const body = action === "apply"
        ? { apply_yaml: applyYaml, approve_code: [...approved] }
        : { reason: reason.trim() };
      await callApi(
        store.fetcher,
        `${paths.harness(p.harness_id)}/proposals/${encodeURIComponent(p.id)}/${action}`,
        jsonBody("POST", body),
      );
      store.cache.refresh(paths.harness(p.harness_id));
      store.notify(action === "apply" ? "Applied what you selected." : "Proposal rejected.");
    } catch (err) {
      setError(err instanceof ApiError ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  const chosenCount = approved.size + (applyYaml ? 1 : 0);
  const pendingCode = p.code_changes.filter((c) => c.status === "pending").length;
  return (
    <div class="decide">
      <p class="muted small decide-summary">
        {chosenCount === 0
          ? "Tick the YAML changes or code changes to apply; unticked code changes stay unapproved."
          : `Applies ${
            applyYaml ? "the YAML changes" : "no YAML changes"
          } and ${approved.size} of ${pendingCode} code changes.`}
      </p>
      <div class="decide-row">
        <button
          type="button"
          class="primary"
          disabled={busy || chosenCount === 0}
          onClick={() => decide("apply")}
          data-testid="apply"
        >
          Apply selected
        </button>
        <input
          name="reason"
          class="decide-reason"
          value={reason}
          aria-label="Reason for rejecting"
          placeholder="Reason for rejecting (required to reject)"
          onInput={(e) => setReason((e.target as HTMLInputElement).value)}
        />
        <button
          type="button"
          class="danger"
          disabled={busy || !reason.trim()}
          onClick={() => decide("reject")}
        >
          Reject
        </button>
      </div>
      <ErrorLine error={error} />
    </div>
  );
}

interface MeasureView {
  set: string;
  baseline: { pass_rate: number; cost_usd: number };
  measured: { pass_rate: number; cost_usd: number };
  cases: { case_id: string; change: string }[];
  delta: { pass_rate: number; cost_usd: number };
}

/** Runs an eval set against the proposal's YAML (on a copy) and shows the delta beside the change. */
function Measure(props: { proposal: Proposal }) {
  const store = useStore();
  const p = props.proposal;
  const [result, setResult] = useState<MeasureView | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [measure, measuring] = useAction(async () => {
    setError(null);
    try {
      setResult(
        await callApi<MeasureView>(
          store.fetcher,
          paths.measure(p.harness_id, p.id),
          jsonBody("POST", {}),
        ),
      );
    } catch (err) {
      setError(err instanceof ApiError ? err.message : String(err));
    }
  });
  const changed = result?.cases.filter((c) => c.change !== "still_passing") ?? [];
  return (
    <div class="measure" data-testid="measure">
      <button type="button" onClick={() => void measure()} disabled={measuring}>
        {measuring ? <span class="spinner small" /> : <Icon name="send" />} Measure on the eval set
      </button>
      <span class="muted small">
        {" "}Runs the set against the proposal's YAML on a temporary copy; nothing is applied.
      </span>
      {result
        ? (
          <p class="measure-result">
            <code>{result.set}</code> pass rate {formatPercent(result.baseline.pass_rate)} →{" "}
            <strong>{formatPercent(result.measured.pass_rate)}</strong>{" "}
            <span
              class={result.delta.pass_rate > 0
                ? "better"
                : result.delta.pass_rate < 0
                ? "worse"
                : ""}
            >
              ({result.delta.pass_rate >= 0 ? "+" : "−"}
              {formatPercent(Math.abs(result.delta.pass_rate))})
            </span>
            {changed.length
              ? ` · ${changed.map((c) => `${c.case_id} ${c.change.replace(/_/g, " ")}`).join(", ")}`
              : ""}
          </p>
        )
        : null}
      <ErrorLine error={error} />
    </div>
  );
}
