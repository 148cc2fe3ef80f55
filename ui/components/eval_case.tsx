/**
 * "Add to eval set": a run drafted as a case of one of the harness's eval sets (its input, its status
 * as the expected one, a `contains` check of its output), checked and changed by the person, then
 * written by the API into `evals/<set>.yaml` (comments kept; an id the set has is refused). The page
 * sends a set name and a case, never a path.
 *
 * @module
 */

import { ErrorLine } from "./empty.tsx";
import { useEffect, useState } from "preact/hooks";
import { RUN_STATUSES } from "../../lib/run_types.ts";
import { ApiError, callApi, jsonBody } from "../api.ts";
import { paths } from "../paths.ts";
import { useApi, useStore } from "../store.ts";
import { Icon } from "./icons.tsx";

/** A check row of the form: a validator builtin and its main option. */
interface CheckRow {
  builtin: string;
  value: string;
}

interface Draft {
  harness_id: string;
  run_id: string;
  sets: string[];
  case: {
    id: string;
    input?: string;
    input_file?: string;
    status: string;
    expect: Record<string, unknown>[];
  };
}

interface BuiltinRow {
  kind: string;
  name: string;
  description: string;
  options: string[];
}

/** The set a new set is called when the harness has none. */
const FIRST_SET = "regressions";

/** A check row as a validator entry: its first option carries the value. */
function entryOf(row: CheckRow, options: string[]): Record<string, unknown> {
  const option = options[0];
  const value = row.value.trim();
  if (!option || !value) return { builtin: row.builtin };
  if (option === "max") return { builtin: row.builtin, [option]: Number(value) };
  if (option === "schema") return { builtin: row.builtin, [option]: JSON.parse(value) };
  return { builtin: row.builtin, [option]: row.value };
}

/** A drafted entry as a row (its first option's value as text). */
function rowOf(entry: Record<string, unknown>, options: Record<string, string[]>): CheckRow {
  const builtin = String(entry.builtin ?? "contains");
  const option = options[builtin]?.[0];
  const value = option === undefined ? "" : entry[option];
  return {
    builtin,
    value: value === undefined ? "" : typeof value === "string" ? value : JSON.stringify(value),
  };
}

/**
 * The form that adds a run to an eval set.
 *
 * @param props The run, its harness, and what to do once added or cancelled.
 * @returns The form.
 */
export function EvalCaseForm(props: { runId: string; harnessId: string; onClose: () => void }) {
  const store = useStore();
  const draft = useApi<Draft>(paths.evalCase(props.runId));
  const catalog = useApi<{ builtins: BuiltinRow[] }>(paths.builtins());
  const validators = (catalog.data?.builtins ?? []).filter((b) => b.kind === "validator");
  const optionsOf = Object.fromEntries(validators.map((v) => [v.name, v.options]));
  const [set, setSet] = useState("");
  const [id, setId] = useState("");
  const [input, setInput] = useState("");
  const [inputFile, setInputFile] = useState("");
  const [status, setStatus] = useState("success");
  const [checks, setChecks] = useState<CheckRow[]>([]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const d = draft.data;

  useEffect(() => {
    if (!d || !catalog.data) return;
    setSet(d.sets[0] ?? FIRST_SET);
    setId(d.case.id);
    setInput(d.case.input ?? "");
    setInputFile(d.case.input_file ?? "");
    setStatus(d.case.status);
    setChecks(d.case.expect.map((e) => rowOf(e, optionsOf)));
  }, [d?.run_id, !!catalog.data]);

  const submit = async () => {
    setBusy(true);
    setError(null);
    try {
      const expect = checks.map((c) => entryOf(c, optionsOf[c.builtin] ?? []));
      const body = {
        set: set.trim(),
        case: {
          id: id.trim(),
          ...(input || !inputFile.trim() ? { input } : {}),
          ...(inputFile.trim() ? { input_file: inputFile.trim() } : {}),
          status,
          ...(expect.length ? { expect } : {}),
        },
      };
      const added = await callApi<{ path: string; case: { id: string }; created_set: boolean }>(
        store.fetcher,
        paths.evalCases(props.harnessId),
        jsonBody("POST", body),
      );
      store.cache.refresh(paths.evals(props.harnessId), paths.evalCase(props.runId));
      store.notify(
        `Added case ${added.case.id} to ${added.path}${added.created_set ? " (a new set)" : ""}.`,
      );
      props.onClose();
    } catch (err) {
      setError(err instanceof ApiError || err instanceof SyntaxError ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  if (!d) {
    return (
      <div class="eval-case-form" data-testid="eval-case-form">
        {draft.error
          ? <p class="field-error" role="alert">{draft.error.message}</p>
          : <p class="muted small">Drafting a case from the run…</p>}
      </div>
    );
  }
  return (
    <form
      class="eval-case-form"
      data-testid="eval-case-form"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <h3 class="detail-title">
        <Icon name="plus" /> Add this run to an eval set
      </h3>
      <p class="muted small">
        Every version of the harness is measured on its eval sets (<code>framework eval</code>,
        Versions). The case re-runs this input and expects the status and checks below.
      </p>
      <CaseHeadFields
        sets={d.sets}
        set={set}
        onSet={setSet}
        id={id}
        onId={setId}
        status={status}
        onStatus={setStatus}
      />
      <CaseInputFields
        input={input}
        onInput={setInput}
        inputFile={inputFile}
        onInputFile={setInputFile}
        showFile={!!inputFile || d.case.input_file !== undefined}
      />
      <CheckFields
        checks={checks}
        onChange={setChecks}
        validators={validators}
        optionsOf={optionsOf}
      />
      <ErrorLine error={error} />
      <div class="eval-case-actions">
        <button type="submit" class="primary" disabled={busy || !set.trim() || !id.trim()}>
          {busy ? <span class="spinner small" /> : <Icon name="plus" />} Add to{" "}
          {set.trim() || "set"}
        </button>
        <button type="button" onClick={props.onClose}>Cancel</button>
      </div>
    </form>
  );
}

/** The set (an existing one or a new name), the case's id and its expected status. */
function CaseHeadFields(props: {
  sets: string[];
  set: string;
  onSet: (set: string) => void;
  id: string;
  onId: (id: string) => void;
  status: string;
  onStatus: (status: string) => void;
}) {
  const isNew = !!props.set.trim() && !props.sets.includes(props.set.trim());
  return (
    <div class="eval-case-grid">
      <label class="field">
        <span>
          Set {isNew ? <span class="badge-new">new</span> : null}
        </span>
        <input
          name="eval-set"
          list="eval-sets"
          value={props.set}
          required
          pattern="[a-z0-9][a-z0-9_\-]*"
          aria-label="Eval set (an existing one, or a new name)"
          onInput={(e) => props.onSet((e.target as HTMLInputElement).value)}
        />
        <datalist id="eval-sets">
          {props.sets.map((s) => <option key={s} value={s} />)}
        </datalist>
      </label>
      <label class="field">
        <span>Case id</span>
        <input
          name="eval-case-id"
          value={props.id}
          required
          aria-label="Case id"
          onInput={(e) => props.onId((e.target as HTMLInputElement).value)}
        />
      </label>
      <label class="field">
        <span>Expected status</span>
        <select
          name="eval-status"
          value={props.status}
          aria-label="Expected status"
          onChange={(e) => props.onStatus((e.target as HTMLSelectElement).value)}
        >
          {RUN_STATUSES.map((s) => <option key={s} value={s}>{s}</option>)}
        </select>
      </label>
    </div>
  );
}

/** The case's input, and its input file when the run read one (or the person typed one). */
function CaseInputFields(props: {
  input: string;
  onInput: (input: string) => void;
  inputFile: string;
  onInputFile: (path: string) => void;
  showFile: boolean;
}) {
  return (
    <>
      <label class="field">
        <span>Input</span>
        <textarea
          name="eval-input"
          rows={Math.min(6, Math.max(2, props.input.split("\n").length))}
          value={props.input}
          aria-label="The case's input"
          onInput={(e) => props.onInput((e.target as HTMLTextAreaElement).value)}
        />
      </label>
      {props.showFile
        ? (
          <label class="field">
            <span>Input file (in the harness)</span>
            <input
              name="eval-input-file"
              value={props.inputFile}
              aria-label="The case's input file"
              onInput={(e) => props.onInputFile((e.target as HTMLInputElement).value)}
            />
          </label>
        )
        : null}
    </>
  );
}

/** The checks of the output: one row per validator (its main option as the value), added and removed. */
function CheckFields(props: {
  checks: CheckRow[];
  onChange: (checks: CheckRow[]) => void;
  validators: BuiltinRow[];
  optionsOf: Record<string, string[]>;
}) {
  const checks = props.checks;
  return (
    <div class="field">
      <span>Checks of the output</span>
      {checks.length ? null : <p class="muted small">None: only the status is checked.</p>}
      {checks.map((c, i) => {
        const option = props.optionsOf[c.builtin]?.[0];
        const change = (patch: Partial<CheckRow>) =>
          props.onChange(checks.map((x, k) => (k === i ? { ...x, ...patch } : x)));
        return (
          <div class="eval-check" key={i} data-testid="eval-check">
            <select
              aria-label={`Check ${i + 1}: validator`}
              value={c.builtin}
              onChange={(e) => change({ builtin: (e.target as HTMLSelectElement).value })}
            >
              {props.validators.map((v) => (
                <option key={v.name} value={v.name} title={v.description}>{v.name}</option>
              ))}
            </select>
            {option
              ? (
                <input
                  aria-label={`Check ${i + 1}: ${option}`}
                  placeholder={option}
                  type={option === "max" ? "number" : "text"}
                  value={c.value}
                  onInput={(e) => change({ value: (e.target as HTMLInputElement).value })}
                />
              )
              : <span class="muted small">no option</span>}
            <button
              type="button"
              class="icon-button"
              title="Remove this check"
              onClick={() => props.onChange(checks.filter((_, k) => k !== i))}
            >
              <Icon name="x" label="Remove this check" />
            </button>
          </div>
        );
      })}
      <div>
        <button
          type="button"
          class="small-button"
          onClick={() => props.onChange([...checks, { builtin: "contains", value: "" }])}
        >
          <Icon name="plus" /> Add a check
        </button>
      </div>
    </div>
  );
}
