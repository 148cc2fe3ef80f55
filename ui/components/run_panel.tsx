/**
 * The Run panel: run the harness with an input text and, optionally, a file of the harness as
 * `input_file`; the run's live Trace opens as soon as the run is accepted and follows it.
 *
 * @module
 */

import { ErrorLine } from "./empty.tsx";
import { useState } from "preact/hooks";
import { ApiError } from "../api.ts";
import { startAndFollow } from "../follow_run.ts";
import { paths } from "../paths.ts";
import { useApi, useStore } from "../store.ts";
import type { HarnessDetail } from "../types.ts";
import { Icon } from "./icons.tsx";

/** The id of the Run panel's input, focused by the Run button and the `r` key. */
export const RUN_INPUT_ID = "run-input";

/**
 * The Run panel of a harness.
 *
 * @param props The harness.
 * @returns The panel.
 */
export function RunPanel(props: { harness: HarnessDetail }) {
  const store = useStore();
  const files = useApi<{ files: string[]; truncated: boolean }>(paths.files(props.harness.id));
  const [input, setInput] = useState("");
  const [file, setFile] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const run = async () => {
    if (!input.trim() && !file) return;
    setBusy(true);
    setError(null);
    try {
      const body = { ...(input.trim() ? { input } : {}), ...(file ? { input_file: file } : {}) };
      if (await startAndFollow(store, paths.startRun(props.harness.id), body, props.harness.id)) {
        setInput("");
      }
    } catch (err) {
      setError(err instanceof ApiError ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      class="run-panel"
      data-testid="run-panel"
      onSubmit={(e) => {
        e.preventDefault();
        void run();
      }}
    >
      <label class="run-input">
        <span class="detail-title">Run {props.harness.id}</span>
        <textarea
          id={RUN_INPUT_ID}
          name="input"
          rows={3}
          value={input}
          placeholder="The input for the harness"
          onInput={(e) => setInput((e.target as HTMLTextAreaElement).value)}
          onKeyDown={(e) => {
            if (e.key === "Enter" && (e.metaKey || e.ctrlKey)) {
              e.preventDefault();
              void run();
            }
          }}
        />
      </label>
      <div class="run-row">
        <label class="chip">
          <span class="chip-label">input_file</span>
          <select
            name="input_file"
            aria-label="A file of the harness as input"
            value={file}
            onChange={(e) => setFile((e.target as HTMLSelectElement).value)}
          >
            <option value="">none</option>
            {(files.data?.files ?? []).map((f) => <option key={f} value={f}>{f}</option>)}
          </select>
        </label>
        <button
          type="submit"
          class="primary"
          disabled={busy || (!input.trim() && !file)}
          data-testid="run-submit"
        >
          {busy ? <span class="spinner small" /> : <Icon name="send" />} Run
        </button>
        <span class="muted small">Ctrl+Enter runs; the trace follows the run live.</span>
      </div>
      <ErrorLine error={error} />
    </form>
  );
}
