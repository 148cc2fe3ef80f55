/**
 * Spec: the `harness.yaml` of a harness, its problems first (each with the edit that fixes it), the
 * text as it is on disk (editable as a whole, validated before it is written), and a form that
 * changes one dotted field through the construction API (comments and layout kept). An edit is saved
 * when it adds no problem, so an invalid harness can be repaired a step at a time. Frozen safety
 * fields are marked: proposals, the copilot and the control plane can never write them; the person
 * at this page can, after confirming it.
 *
 * @module
 */

import { useMemo, useRef, useState } from "preact/hooks";
import { frozenRootIn } from "../../lib/frozen_root.ts";
import { ApiError, callApi, jsonBody } from "../api.ts";
import { ErrorLine, Pending } from "../components/empty.tsx";
import { Icon } from "../components/icons.tsx";
import { oneLine } from "../format.ts";
import { paths } from "../paths.ts";
import { type Store, useApi, useStore } from "../store.ts";
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

/** A refusal the page can turn into a confirmation: the frozen field it touched. */
function frozenRootOfError(err: unknown): string | null {
  return err instanceof ApiError && err.kind === "forbidden" &&
      typeof err.details.frozen_root === "string"
    ? err.details.frozen_root
    : null;
}

/** Reloads what shows the spec after a change. */
function refreshSpec(store: Store, id: string): void {
  store.cache.refresh(paths.harness(id));
  store.cache.refresh(paths.spec(id));
  store.cache.refresh(paths.catalog());
}

function SpecBody(props: { harness: HarnessDetail; view: SpecView }) {
  const { view } = props;
  const leaves = useMemo(() => leafPaths(props.harness.spec ?? {}), [props.harness.spec]);
  const [path, setPath] = useState("");
  const [value, setValue] = useState("");
  const formRef = useRef<HTMLFormElement>(null);
  const issueLines = new Set(view.issues.map((i) => i.line).filter((l) => l !== undefined));
  const removal = useRemoveField(props.harness.id, view.frozen);

  /** Puts a field into the form, scrolls to it and focuses its value. */
  const edit = (p: string) => {
    const current = leaves.find(([l]) => l === p)?.[1];
    setPath(p);
    // Text that would read as JSON (`"12"`, `"true"`) is quoted.
    setValue(
      current === undefined
        ? ""
        : typeof current === "string" && parseValue(current) === current
        ? current
        : JSON.stringify(current),
    );
    formRef.current?.scrollIntoView({ block: "nearest", behavior: "smooth" });
    requestAnimationFrame(() => document.getElementById("field-value")?.focus());
  };

  return (
    <div class="spec" data-testid="spec">
      {view.issues.length ? <SpecProblems view={view} removal={removal} edit={edit} /> : null}
      <div class="spec-text">
        <TextEditor
          harness={props.harness}
          view={view}
          issueLines={issueLines}
        />
      </div>
      <div class="spec-edit">
        <EditForm
          formRef={formRef}
          harness={props.harness}
          frozen={view.frozen}
          leaves={leaves}
          path={path}
          value={value}
          setPath={setPath}
          setValue={setValue}
        />
        <FieldTable leaves={leaves} frozen={view.frozen} edit={edit} />
      </div>
    </div>
  );
}

/** Removing a field (an unknown key): which one is being removed, and which one awaits a confirmation. */
interface FieldRemoval {
  remove: (path: string, confirmFrozen?: boolean) => Promise<void>;
  removing: string | null;
  confirmRemove: string | null;
  setConfirmRemove: (path: string | null) => void;
}

/** Removes a field (an unknown key) through the construction API; a frozen one is confirmed first. */
function useRemoveField(harnessId: string, frozenRoots: string[]): FieldRemoval {
  const store = useStore();
  const [removing, setRemoving] = useState<string | null>(null);
  const [confirmRemove, setConfirmRemove] = useState<string | null>(null);
  const remove = async (p: string, confirmFrozen = false) => {
    // A frozen field is asked about before anything is sent.
    if (!confirmFrozen && frozenRootIn(p, frozenRoots)) {
      setConfirmRemove(p);
      return;
    }
    setRemoving(p);
    try {
      await callApi(
        store.fetcher,
        `${paths.harness(harnessId)}/remove`,
        jsonBody("POST", { path: p, ...(confirmFrozen ? { confirm_frozen: true } : {}) }),
      );
      setConfirmRemove(null);
      refreshSpec(store, harnessId);
      store.notify(`Removed ${p}`);
    } catch (err) {
      store.notify((err as Error).message, "error");
    } finally {
      setRemoving(null);
    }
  };
  return { remove, removing, confirmRemove, setConfirmRemove };
}

/** The spec's problems, errors first counted: each error with the edit that fixes it. */
function SpecProblems(props: {
  view: SpecView;
  removal: FieldRemoval;
  edit: (path: string) => void;
}) {
  const { view } = props;
  const errors = view.issues.filter((i) => i.severity === "error");
  return (
    <section class="spec-problems" aria-labelledby="spec-problems-title">
      <h2 class="section-title" id="spec-problems-title">
        {errors.length
          ? `${errors.length} ${errors.length === 1 ? "problem" : "problems"} to fix`
          : "Warnings"}
      </h2>
      {errors.length
        ? (
          <p class="muted small">
            The harness cannot run until these are fixed. Each edit is saved when it adds no new
            problem, so you can fix them one at a time, here or in the text below.
          </p>
        )
        : null}
      <ul class="issues" aria-label="Problems in harness.yaml">
        {view.issues.map((i, k) => (
          <li key={k} class={`issue issue-${i.severity}`} data-issue={i.path}>
            <div>
              <strong>{i.severity}</strong> <code>{i.path || "(file)"}</code>
              {i.line ? <span class="muted">line {i.line}</span> : null}: {i.message}
            </div>
            {i.path && i.severity === "error"
              ? (
                <div class="issue-actions">
                  <IssueFix
                    path={i.path}
                    unknownKey={/^Unknown key /.test(i.message)}
                    frozen={view.frozen}
                    removal={props.removal}
                    edit={props.edit}
                  />
                </div>
              )
              : null}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** What fixes one error: an unknown key is removed (a frozen one after confirming); else Fix. */
function IssueFix(props: {
  path: string;
  unknownKey: boolean;
  frozen: string[];
  removal: FieldRemoval;
  edit: (path: string) => void;
}) {
  const { path, removal } = props;
  if (props.unknownKey && removal.confirmRemove === path) {
    return (
      <ConfirmFrozen
        roots={[frozenRootIn(path, props.frozen) ?? path]}
        busy={removal.removing === path}
        onConfirm={() => void removal.remove(path, true)}
        onCancel={() => removal.setConfirmRemove(null)}
      />
    );
  }
  if (props.unknownKey) {
    return (
      <button
        type="button"
        class="link-button"
        disabled={removal.removing === path}
        onClick={() => void removal.remove(path)}
      >
        Remove <code>{path}</code>
      </button>
    );
  }
  return (
    <button type="button" class="link-button" onClick={() => props.edit(path)}>
      Fix <code>{path}</code>
    </button>
  );
}

/** Every field of the spec with its value and Edit; frozen safety fields marked. */
function FieldTable(
  props: { leaves: [string, unknown][]; frozen: string[]; edit: (path: string) => void },
) {
  return (
    <>
      <h2 class="section-title">Fields</h2>
      <table class="table fields">
        <tbody>
          {props.leaves.map(([p, v]) => {
            const frozen = frozenRootIn(p, props.frozen);
            return (
              <tr key={p} class={frozen ? "frozen" : ""} data-path={p}>
                <td>
                  {/* The path is cut in its middle, never its last key nor the mark after it. */}
                  <span class="field-path">
                    <PathCode path={p} />
                    {frozen
                      ? (
                        <span
                          class="frozen-mark"
                          title={`Frozen safety field (${frozen}): you can change it after confirming; proposals, the copilot and the control plane never can`}
                        >
                          <Icon name="lock" size={12} /> frozen
                        </span>
                      )
                      : null}
                  </span>
                </td>
                <td class="excerpt" title={typeof v === "string" ? v : JSON.stringify(v)}>
                  {oneLine(v, 40)}
                </td>
                <td class="act">
                  <button type="button" class="link-button" onClick={() => props.edit(p)}>
                    Edit
                  </button>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <p class="muted small">
        <Icon name="lock" size={12} />{" "}
        Frozen safety fields ({props.frozen.join(", ")}) are never written by proposals, the copilot
        or the control plane. Here you can change them after confirming.
      </p>
    </>
  );
}

/** A dotted path that, when cut, keeps its last key: `model.scenari….text`. */
function PathCode(props: { path: string }) {
  const cut = props.path.lastIndexOf(".");
  return (
    <code class="path-code" title={props.path}>
      {cut > 0
        ? (
          <>
            {/* A long head keeps its first letters (the root) even when the last key is cut. */}
            <span class={cut > 8 ? "path-head path-head-long" : "path-head"}>
              {props.path.slice(0, cut)}
            </span>
            <span class="path-tail">{props.path.slice(cut)}</span>
          </>
        )
        : <span class="path-head">{props.path}</span>}
    </code>
  );
}

/** The text of `harness.yaml`: shown with its problem lines, or edited as a whole. */
function TextEditor(
  props: { harness: HarnessDetail; view: SpecView; issueLines: Set<number | undefined> },
) {
  const store = useStore();
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(props.view.text);
  const [error, setError] = useState<string | null>(null);
  const [confirmRoots, setConfirmRoots] = useState<string[] | null>(null);
  const [busy, setBusy] = useState(false);

  const save = async (confirmFrozen = false) => {
    setBusy(true);
    setError(null);
    try {
      // A frozen field is asked about before the text is sent (the server would refuse it).
      if (!confirmFrozen) {
        const { frozen_changed } = await callApi<{ frozen_changed: string[] }>(
          store.fetcher,
          paths.specFrozenChanges(props.harness.id),
          jsonBody("POST", { text }),
        );
        if (frozen_changed.length) {
          setConfirmRoots(frozen_changed);
          return;
        }
      }
      const r = await callApi<{ changed: boolean; valid: boolean }>(
        store.fetcher,
        paths.spec(props.harness.id),
        jsonBody("PUT", { text, ...(confirmFrozen ? { confirm_frozen: true } : {}) }),
      );
      setConfirmRoots(null);
      setEditing(false);
      refreshSpec(store, props.harness.id);
      store.notify(
        !r.changed
          ? "harness.yaml was already this text"
          : r.valid
          ? "Saved harness.yaml"
          : "Saved harness.yaml; other problems remain",
      );
    } catch (err) {
      const root = frozenRootOfError(err);
      if (root && !confirmFrozen) setConfirmRoots([root]);
      else setError(err instanceof ApiError ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  if (!editing) {
    return (
      <YamlText
        text={props.view.text}
        issueLines={props.issueLines}
        onEdit={() => {
          setText(props.view.text);
          setError(null);
          setConfirmRoots(null);
          setEditing(true);
        }}
      />
    );
  }
  return (
    <form
      class="text-editor"
      aria-label="Edit harness.yaml as text"
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <div class="section-head">
        <h2 class="section-title">harness.yaml</h2>
        <span class="muted small">
          Checked before it is written; nothing changes if it is refused.
        </span>
      </div>
      <textarea
        class="yaml-input"
        name="text"
        aria-label="harness.yaml text"
        spellcheck={false}
        value={text}
        rows={Math.min(40, Math.max(12, text.split("\n").length + 2))}
        aria-invalid={error ? true : undefined}
        onInput={(e) => {
          setText((e.target as HTMLTextAreaElement).value);
          setError(null);
          setConfirmRoots(null);
        }}
        onKeyDown={(e) => {
          if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
            e.preventDefault();
            void save();
          }
        }}
      />
      <ErrorLine error={error} testId="text-error" />
      {confirmRoots
        ? (
          <ConfirmFrozen
            roots={confirmRoots}
            busy={busy}
            onConfirm={() => void save(true)}
            onCancel={() => setConfirmRoots(null)}
          />
        )
        : null}
      <div class="form-actions">
        <button type="submit" class="primary" disabled={busy}>Save harness.yaml</button>
        <button type="button" class="button" disabled={busy} onClick={() => setEditing(false)}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** `harness.yaml` as it is on disk, its problem lines marked, and the button that edits it. */
function YamlText(
  props: { text: string; issueLines: Set<number | undefined>; onEdit: () => void },
) {
  return (
    <>
      <div class="section-head">
        <h2 class="section-title">harness.yaml</h2>
        <button type="button" class="button" data-testid="edit-text" onClick={props.onEdit}>
          Edit as text
        </button>
      </div>
      <pre
        class="yaml"
        aria-label="harness.yaml"
      ><code>{props.text.replace(/\n$/, "").split("\n").map((line, i) => (
        <span key={i} class={props.issueLines.has(i + 1) ? "line line-issue" : "line"}>
          <span class="ln" aria-hidden="true">{i + 1}</span>
          {line + "\n"}
        </span>
      ))}</code></pre>
    </>
  );
}

/** Asks before a person's edit writes frozen safety fields. */
function ConfirmFrozen(
  props: { roots: string[]; busy: boolean; onConfirm: () => void; onCancel: () => void },
) {
  const many = props.roots.length > 1;
  return (
    <div class="confirm-frozen" role="alertdialog" aria-label="Confirm a frozen field">
      <p>
        <Icon name="lock" size={13} /> This changes {props.roots.map((r, i) => (
          <span key={r}>
            {i ? (i === props.roots.length - 1 ? " and " : ", ") : null}
            <code>{r}</code>
          </span>
        ))},{" "}
        {many ? "frozen safety fields" : "a frozen safety field"}: proposals, the copilot and the
        control plane can never change {many ? "them" : "it"}. Change {many ? "them" : "it"}{" "}
        yourself?
      </p>
      <div class="form-actions">
        <button
          type="button"
          class="primary"
          data-testid="confirm-frozen"
          disabled={props.busy}
          onClick={props.onConfirm}
        >
          Yes, change {props.roots.join(", ")}
        </button>
        <button type="button" class="button" onClick={props.onCancel}>Cancel</button>
      </div>
    </div>
  );
}

function EditForm(props: {
  formRef: { current: HTMLFormElement | null };
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
  const [confirmRoot, setConfirmRoot] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const path = props.path.trim();
  const frozen = path ? frozenRootIn(path, props.frozen) : undefined;
  const current = props.leaves.find(([p]) => p === path);
  const parsed = parseValue(props.value);
  const multiline = props.value.includes("\n") || props.value.length > 60;

  const send = async (confirmFrozen: boolean) => {
    setBusy(true);
    setError(null);
    try {
      const r = await setField(store, props.harness.id, path, parsed, confirmFrozen);
      setConfirmRoot(null);
      refreshSpec(store, props.harness.id);
      store.notify(
        r.changed
          ? `Set ${r.path}: ${oneLine(r.old ?? "(unset)", 30)} → ${oneLine(r.new, 30)}${
            r.valid === false ? " (other problems remain)" : ""
          }`
          : `${r.path} already was ${oneLine(r.new, 30)}`,
      );
    } catch (err) {
      const root = frozenRootOfError(err);
      if (root && !confirmFrozen) setConfirmRoot(root);
      else setError(err instanceof ApiError ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  const save = (ev: Event) => {
    ev.preventDefault();
    if (!path) return;
    // A frozen field is asked about before anything is sent.
    if (frozen && !confirmRoot) {
      setConfirmRoot(frozen);
      return;
    }
    void send(!!frozen);
  };

  return (
    <form class="edit-form" onSubmit={save} aria-label="Change a field" ref={props.formRef}>
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
          aria-invalid={error ? true : undefined}
          aria-describedby="field-path-note"
          onInput={(e) => {
            props.setPath((e.target as HTMLInputElement).value);
            setError(null);
            setConfirmRoot(null);
          }}
        />
        <datalist id="spec-paths">
          {props.leaves.map(([p]) => <option key={p} value={p} />)}
        </datalist>
      </label>
      <FieldPathNote path={path} frozen={frozen} current={current} />
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
          aria-invalid={error ? true : undefined}
          aria-describedby="field-value-note"
          onInput={(e) => {
            props.setValue((e.target as HTMLTextAreaElement).value);
            setError(null);
            setConfirmRoot(null);
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
      <FieldValueNote error={error} value={props.value} parsed={parsed} />
      {confirmRoot
        ? (
          <ConfirmFrozen
            roots={[confirmRoot]}
            busy={busy}
            onConfirm={() => void send(true)}
            onCancel={() => setConfirmRoot(null)}
          />
        )
        : <button type="submit" class="primary" disabled={busy || !path}>Save</button>}
    </form>
  );
}

/** Writes one field through the construction API (`POST …/set`). */
function setField(
  store: Store,
  harnessId: string,
  path: string,
  value: unknown,
  confirmFrozen: boolean,
) {
  return callApi<{ path: string; old: unknown; new: unknown; changed: boolean; valid?: boolean }>(
    store.fetcher,
    `${paths.harness(harnessId)}/set`,
    jsonBody("POST", { path, value, ...(confirmFrozen ? { confirm_frozen: true } : {}) }),
  );
}

/** What the path in the form is: a frozen safety field, a field with its value now, or a new one. */
function FieldPathNote(
  props: { path: string; frozen: string | undefined; current: [string, unknown] | undefined },
) {
  return (
    <div id="field-path-note" class="field-note" aria-live="polite">
      {props.frozen
        ? (
          <p class="frozen-note" data-testid="frozen-note">
            <Icon name="lock" size={13} /> <code>{props.path}</code>{" "}
            is a frozen safety field (<code>{props.frozen}</code>): proposals, the copilot and the
            control plane can never change it. You can, after confirming.
          </p>
        )
        : props.current
        ? (
          <p class="muted">
            Now: <code>{oneLine(props.current[1], 60)}</code>
          </p>
        )
        : props.path
        ? <p class="muted">A new field (the schema checks it when you save).</p>
        : null}
    </div>
  );
}

/** The value's error, or how the value will be written (its type). */
function FieldValueNote(props: { error: string | null; value: string; parsed: unknown }) {
  return (
    <div id="field-value-note" class="field-note">
      {props.error
        ? <p class="field-error" role="alert" data-testid="field-error">{props.error}</p>
        : props.value
        ? (
          <p class="muted">
            Written as {describe(props.parsed)}. Quote it (<code>"12"</code>) to write text.
          </p>
        )
        : null}
    </div>
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
