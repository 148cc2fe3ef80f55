/**
 * Spec: the `harness.yaml` text as it is on disk, and a form that changes one dotted field through the
 * construction API (comments and layout of the file are kept). Frozen safety fields are marked and
 * cannot be edited here; the API's errors are shown next to the field.
 *
 * @module
 */

import { useMemo, useState } from "preact/hooks";
import { frozenRootIn } from "../../lib/spec/frozen.ts";
import { ApiError, callApi, jsonBody } from "../api.ts";
import { Pending } from "../components/empty.tsx";
import { Icon } from "../components/icons.tsx";
import { oneLine } from "../format.ts";
import { paths } from "../paths.ts";
import { useApi, useStore } from "../store.ts";
import type { HarnessDetail, SpecView } from "../types.ts";

/**
 * The Spec tab.
 *
 * @param props The harness.
 * @returns The tab.
 */
export function SpecTab(props: { harness: HarnessDetail }) {
  const spec = useApi<SpecView>(paths.spec(props.harness.id));
  if (!spec.data) return <Pending error={spec.error} what="harness.yaml" />;
  return <SpecBody harness={props.harness} view={spec.data} />;
}

function SpecBody(props: { harness: HarnessDetail; view: SpecView }) {
  const { view } = props;
  const leaves = useMemo(() => leafPaths(props.harness.spec ?? {}), [props.harness.spec]);
  const [path, setPath] = useState("");
  const [value, setValue] = useState("");
  const issueLines = new Set(view.issues.map((i) => i.line).filter((l) => l !== undefined));
  return (
    <div class="spec" data-testid="spec">
      <div class="spec-text">
        <h2 class="section-title">harness.yaml</h2>
        {view.issues.length
          ? (
            <ul class="issues" aria-label="Problems in harness.yaml">
              {view.issues.map((i, k) => (
                <li key={k} class={`issue issue-${i.severity}`}>
                  <strong>{i.severity}</strong> <code>{i.path || "(file)"}</code>
                  {i.line ? <span class="muted">line {i.line}</span> : null}: {i.message}
                </li>
              ))}
            </ul>
          )
          : null}
        <pre
          class="yaml"
          aria-label="harness.yaml"
        ><code>{view.text.replace(/\n$/, "").split("\n").map((line, i) => (
          <span key={i} class={issueLines.has(i + 1) ? "line line-issue" : "line"}>
            <span class="ln" aria-hidden="true">{i + 1}</span>
            {line + "\n"}
          </span>
        ))}</code></pre>
      </div>
      <div class="spec-edit">
        <EditForm
          harness={props.harness}
          frozen={view.frozen}
          leaves={leaves}
          path={path}
          value={value}
          setPath={setPath}
          setValue={setValue}
        />
        <h2 class="section-title">Fields</h2>
        <table class="table fields">
          <tbody>
            {leaves.map(([p, v]) => {
              const frozen = frozenRootIn(p, view.frozen);
              return (
                <tr key={p} class={frozen ? "frozen" : ""} data-path={p}>
                  <td>
                    <code>{p}</code>
                  </td>
                  <td class="excerpt" title={typeof v === "string" ? v : JSON.stringify(v)}>
                    {oneLine(v, 40)}
                  </td>
                  <td class="act">
                    {frozen
                      ? (
                        <span
                          class="frozen-mark"
                          title={`Frozen safety field (${frozen}): edit harness.yaml on disk`}
                        >
                          <Icon name="lock" size={13} /> frozen
                        </span>
                      )
                      : (
                        <button
                          type="button"
                          class="link-button"
                          onClick={() => {
                            setPath(p);
                            // Text that would read as JSON (`"12"`, `"true"`) is quoted.
                            setValue(
                              typeof v === "string" && parseValue(v) === v ? v : JSON.stringify(v),
                            );
                            document.getElementById("field-value")?.focus();
                          }}
                        >
                          Edit
                        </button>
                      )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
        <p class="muted small">
          <Icon name="lock" size={12} />{" "}
          Frozen safety fields ({view.frozen.join(", ")}) change only by editing{" "}
          <code>harness.yaml</code> yourself; neither this page nor a proposal can write them.
        </p>
      </div>
    </div>
  );
}

function EditForm(props: {
  harness: HarnessDetail;
  frozen: string[];
  leaves: [string, unknown][];
  path: string;
  value: string;
  setPath: (p: string) => void;
  setValue: (v: string) => void;
}) {
  const store = useStore();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const path = props.path.trim();
  const frozen = path ? frozenRootIn(path, props.frozen) : undefined;
  const current = props.leaves.find(([p]) => p === path);
  const parsed = parseValue(props.value);
  const multiline = props.value.includes("\n") || props.value.length > 60;

  const save = async (ev: Event) => {
    ev.preventDefault();
    if (!path || frozen) return;
    setBusy(true);
    setError(null);
    try {
      const r = await callApi<{ path: string; old: unknown; new: unknown; changed: boolean }>(
        store.fetcher,
        `${paths.harness(props.harness.id)}/set`,
        jsonBody("POST", { path, value: parsed }),
      );
      store.cache.refresh(paths.harness(props.harness.id));
      store.notify(
        r.changed
          ? `Set ${r.path}: ${oneLine(r.old ?? "(unset)", 30)} → ${oneLine(r.new, 30)}`
          : `${r.path} already was ${oneLine(r.new, 30)}`,
      );
    } catch (err) {
      setError(err instanceof ApiError ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="edit-form" onSubmit={save} aria-label="Change a field">
      <h2 class="section-title">Change a field</h2>
      <label class="field">
        <span>Dotted path</span>
        <input
          id="field-path"
          name="path"
          list="spec-paths"
          value={props.path}
          placeholder="limits.max_turns"
          autoComplete="off"
          spellcheck={false}
          aria-invalid={frozen || error ? true : undefined}
          aria-describedby="field-path-note"
          onInput={(e) => {
            props.setPath((e.target as HTMLInputElement).value);
            setError(null);
          }}
        />
        <datalist id="spec-paths">
          {props.leaves.map(([p]) => <option key={p} value={p} />)}
        </datalist>
      </label>
      <div id="field-path-note" class="field-note" aria-live="polite">
        {frozen
          ? (
            <p class="field-error" role="alert" data-testid="frozen-refusal">
              <Icon name="lock" size={13} /> <code>{path}</code>{" "}
              is a frozen safety field (<code>{frozen}</code>). It cannot be edited here; change
              {" "}
              <code>harness.yaml</code> on disk if you mean it.
            </p>
          )
          : current
          ? (
            <p class="muted">
              Now: <code>{oneLine(current[1], 60)}</code>
            </p>
          )
          : path
          ? <p class="muted">A new field (the schema checks it when you save).</p>
          : null}
      </div>
      <label class="field">
        <span>Value</span>
        <textarea
          id="field-value"
          name="value"
          value={props.value}
          rows={multiline ? 6 : 1}
          placeholder="12"
          autoComplete="off"
          spellcheck={false}
          disabled={!!frozen}
          aria-invalid={error ? true : undefined}
          aria-describedby="field-value-note"
          onInput={(e) => {
            props.setValue((e.target as HTMLTextAreaElement).value);
            setError(null);
          }}
          onKeyDown={(e) => {
            // Enter saves a one-line value; Ctrl+Enter saves a longer one.
            if (e.key === "Enter" && (!multiline || e.ctrlKey || e.metaKey)) {
              e.preventDefault();
              (e.currentTarget as HTMLTextAreaElement).form?.requestSubmit();
            }
          }}
        />
      </label>
      <div id="field-value-note" class="field-note">
        {error
          ? <p class="field-error" role="alert" data-testid="field-error">{error}</p>
          : props.value
          ? (
            <p class="muted">
              Written as {describe(parsed)}. Quote it (<code>"12"</code>) to write text.
            </p>
          )
          : null}
      </div>
      <button type="submit" class="primary" disabled={busy || !path || !!frozen}>Save</button>
    </form>
  );
}

/** A typed value: JSON when it reads as JSON (numbers, true, lists…), else the text itself. */
export function parseValue(text: string): unknown {
  const t = text.trim();
  if (!t) return "";
  try {
    return JSON.parse(t);
  } catch {
    return text;
  }
}

function describe(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "a list";
  if (typeof v === "object") return "a mapping";
  if (typeof v === "boolean") return "true/false";
  return typeof v === "string" ? "text" : "a number";
}

/** Every scalar (and empty list or mapping) of the spec with its dotted path. */
export function leafPaths(value: unknown, prefix = ""): [string, unknown][] {
  if (value !== null && typeof value === "object") {
    const entries = Array.isArray(value)
      ? value.map((v, i) => [String(i), v] as const)
      : Object.entries(value as Record<string, unknown>);
    if (!entries.length) return prefix ? [[prefix, value]] : [];
    return entries.flatMap(([k, v]) => leafPaths(v, prefix ? `${prefix}.${k}` : k));
  }
  return [[prefix, value]];
}
