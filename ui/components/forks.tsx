/**
 * Forks in the workbench: the "Fork here" form of a model call (a name prefilled with a free slug,
 * an optional model, an optional change of the user message or a tool result the call was given; the
 * page never sends a path), the bar of a fork's page with Resume, and a run's
 * Lineage (its parent, its forks by re-entry seq, its delegated runs by harness).
 *
 * @module
 */

import { ErrorLine } from "./empty.tsx";
import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError, callApi, jsonBody } from "../api.ts";
import { startAndFollow } from "../follow_run.ts";
import { paths } from "../paths.ts";
import { withRoute } from "../route.ts";
import { useApi, useStore } from "../store.ts";
import type { HarnessDetail } from "../types.ts";
import { Icon } from "./icons.tsx";
import { Link } from "./link.tsx";
import { shortId } from "../format.ts";

/** The id of the fork form's name field (the row's Fork button focuses it). */
export const FORK_NAME_ID = "fork-name";

/** A message the model call was given new, as the call's `append` holds it. */
export type AppendedMessage = {
  role: string;
  content: string;
  name?: string;
  tool_call_id?: string;
};

/** What a fork may change before it resumes: the call's last new user message, or a tool result. */
interface EditTarget {
  key: string;
  label: string;
  kind: "user_message" | "tool_result";
  call_id?: string;
  original: string;
}

function editTargets(append: AppendedMessage[]): EditTarget[] {
  const out: EditTarget[] = [];
  const user = append.findLast((m) => m.role === "user");
  if (user) {
    out.push({
      key: "user",
      label: "the user message",
      kind: "user_message",
      original: user.content,
    });
  }
  for (const m of append) {
    if (m.role !== "tool" || !m.tool_call_id) continue;
    out.push({
      key: `tool:${m.tool_call_id}`,
      label: `the result of ${m.name ?? "a tool"} (${m.tool_call_id})`,
      kind: "tool_result",
      call_id: m.tool_call_id,
      original: m.content,
    });
  }
  return out;
}

/**
 * The "Fork here" form of a model call: a name, a model, and optionally a change of the user message
 * or a tool result the call was given (every resume of the fork applies it).
 *
 * @param props The run, the model call's seq and the messages it was given new.
 * @returns The form.
 */
export function ForkForm(props: { runId: string; seq: number; append?: AppendedMessage[] }) {
  const store = useStore();
  const suggested = useApi<{ name: string }>(paths.forkName(props.runId));
  const [name, setName] = useState<string | null>(null);
  const [model, setModel] = useState("");
  const [target, setTarget] = useState("");
  const [replacement, setReplacement] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const shown = name ?? suggested.data?.name ?? "";
  const targets = editTargets(props.append ?? []);
  const chosen = targets.find((t) => t.key === target);

  const fork = async () => {
    setBusy(true);
    setError(null);
    try {
      const edit = chosen
        ? {
          kind: chosen.kind,
          replacement,
          ...(chosen.call_id ? { call_id: chosen.call_id } : {}),
        }
        : undefined;
      const body = {
        at: props.seq,
        name: shown.trim(),
        ...(model.trim() ? { model } : {}),
        ...(edit ? { edit } : {}),
      };
      const made = await callApi<{ harness: { id: string } }>(
        store.fetcher,
        paths.fork(props.runId),
        jsonBody("POST", body),
      );
      store.cache.refresh(paths.catalog());
      store.notify(`Forked into ${made.harness.id}: resume it from its page.`);
      store.navigate(withRoute(store.route.value, { harness: made.harness.id, tab: "overview" }));
    } catch (err) {
      setError(err instanceof ApiError ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      class="fork-form"
      data-testid="fork-form"
      onSubmit={(e) => {
        e.preventDefault();
        void fork();
      }}
    >
      <h3 class="detail-title">
        <Icon name="fork" /> Fork here
      </h3>
      <p class="muted small">
        A new harness beside this one re-enters the run at this call: the events before it are
        replayed from the journal, nothing of them runs again.
      </p>
      <div class="fork-row">
        <label class="chip">
          <span class="chip-label">Name</span>
          <input
            id={FORK_NAME_ID}
            name="fork-name"
            value={shown}
            pattern="[a-z0-9]+(-[a-z0-9]+)*"
            aria-label="The fork's name (a slug)"
            onInput={(e) => setName((e.target as HTMLInputElement).value)}
          />
        </label>
        <label class="chip">
          <span class="chip-label">Model</span>
          <input
            name="fork-model"
            value={model}
            placeholder="the parent's"
            aria-label="The fork's model (provider:name, optional)"
            onInput={(e) => setModel((e.target as HTMLInputElement).value)}
          />
        </label>
      </div>
      {targets.length
        ? (
          <ForkEditField
            targets={targets}
            target={target}
            replacement={replacement}
            onTarget={(key) => {
              setTarget(key);
              setReplacement(targets.find((t) => t.key === key)?.original ?? "");
            }}
            onReplacement={setReplacement}
          />
        )
        : null}
      <ErrorLine error={error} />
      <div class="fork-actions">
        <button type="submit" class="primary" disabled={busy || !shown.trim()}>
          <Icon name="fork" /> {chosen ? "Fork with the edit" : "Fork"}
        </button>
      </div>
    </form>
  );
}

/** What a fork may change before it resumes: the choice of message, and what the model gets instead. */
function ForkEditField(props: {
  targets: EditTarget[];
  target: string;
  onTarget: (key: string) => void;
  replacement: string;
  onReplacement: (text: string) => void;
}) {
  const chosen = props.targets.find((t) => t.key === props.target);
  return (
    <div class="fork-edit">
      <label class="field">
        <span>Change before resuming</span>
        <select
          name="fork-edit"
          value={props.target}
          aria-label="What to change before resuming"
          onChange={(e) => props.onTarget((e.target as HTMLSelectElement).value)}
        >
          <option value="">nothing: resume with the same context</option>
          {props.targets.map((t) => <option key={t.key} value={t.key}>{t.label}</option>)}
        </select>
      </label>
      {chosen
        ? (
          <>
            <textarea
              name="fork-replacement"
              rows={Math.min(8, Math.max(3, props.replacement.split("\n").length))}
              value={props.replacement}
              aria-label={`What the model is given instead of ${chosen.label}`}
              onInput={(e) => props.onReplacement((e.target as HTMLTextAreaElement).value)}
            />
            <p class="muted small">
              The resumed run's model is given this instead of{" "}
              {chosen.label}. The journal keeps the replayed prefix as it was and records the change
              as <code>fork_edited</code>.
            </p>
          </>
        )
        : null}
    </div>
  );
}

/**
 * A fork's bar on its harness page: where it came from, and Resume.
 *
 * @param props The harness.
 * @returns The bar, or nothing when the harness is not a fork.
 */
export function ForkBar(props: { harness: HarnessDetail }) {
  const store = useStore();
  const fork = props.harness.spec?.fork as
    | {
      parent: string;
      run_id: string;
      at: number;
      edit?: { kind: string; call_id?: string; replacement: string };
    }
    | undefined;
  const [busy, setBusy] = useState(false);
  if (!fork) return null;
  const resume = async () => {
    setBusy(true);
    try {
      await startAndFollow(store, paths.resume(props.harness.id), {}, props.harness.id);
    } catch (err) {
      store.notify((err as Error).message, "error");
    } finally {
      setBusy(false);
    }
  };
  const parentRoute = withRoute(store.route.value, {
    harness: fork.parent,
    tab: "trace",
    run: fork.run_id,
  });
  return (
    <div class="fork-bar" data-testid="fork-bar">
      <Icon name="fork" />
      <span>
        Fork of{" "}
        <Link to={withRoute(store.route.value, { harness: fork.parent })}>{fork.parent}</Link>{" "}
        at seq {fork.at} of <Link to={parentRoute} class="mono">{shortId(fork.run_id)}</Link>
        {fork.edit
          ? (
            <span data-testid="fork-edit-note" title={fork.edit.replacement}>
              {` · with ${
                fork.edit.kind === "user_message"
                  ? "the user message"
                  : `the result of ${fork.edit.call_id ?? "a tool call"}`
              } changed`}
            </span>
          )
          : null}
      </span>
      <button
        type="button"
        class="primary"
        disabled={busy}
        onClick={() => void resume()}
        data-testid="resume"
      >
        {busy ? <span class="spinner small" /> : <Icon name="send" />} Resume
      </button>
    </div>
  );
}

interface LineageView {
  parent: { run_id: string; harness_id: string | null; kind: string } | null;
  children: {
    kind: "fork" | "delegation";
    harness_id: string;
    run_id: string;
    reentry_seq?: number;
    status?: string;
  }[];
}

/**
 * A run's lineage: its parent and its children, each a link to its trace.
 *
 * @param props The run, and whether it is live (its children may still grow).
 * @returns The panel, or nothing when the run has no lineage.
 */
export function LineagePanel(props: { runId: string; live: boolean }) {
  const store = useStore();
  const path = paths.lineage(props.runId);
  const lineage = useApi<LineageView>(path);
  // A run that ends may have had children added while it ran: read them again then (not on the
  // first render, whose read is the one above).
  const wasLive = useRef(props.live);
  useEffect(() => {
    if (wasLive.current && !props.live) void store.cache.load(path, true);
    wasLive.current = props.live;
  }, [props.live]);
  const data = lineage.data;
  if (!data || (!data.parent && !data.children.length)) return null;
  const route = store.route.value;
  const to = (harness: string | null, run: string) =>
    withRoute(route, { ...(harness ? { harness } : {}), tab: "trace", run });
  return (
    <details class="lineage" open data-testid="lineage">
      <summary class="detail-title">Lineage</summary>
      {data.parent
        ? (
          <p class="small">
            {data.parent.kind === "fork" ? "Forked from" : "Delegated by"}{" "}
            <Link to={to(data.parent.harness_id, data.parent.run_id)} class="mono">
              {data.parent.harness_id ?? "?"} · {shortId(data.parent.run_id)}
            </Link>
          </p>
        )
        : null}
      {data.children.length
        ? (
          <ul class="lineage-list">
            {data.children.map((c) => (
              <li key={c.run_id}>
                <span class="muted small">
                  {c.kind === "fork" ? `fork at seq ${c.reentry_seq}` : `delegated · ${c.status}`}
                </span>{" "}
                <Link to={to(c.harness_id, c.run_id)} class="mono">
                  {c.harness_id} · {shortId(c.run_id)}
                </Link>
              </li>
            ))}
          </ul>
        )
        : null}
    </details>
  );
}
