/**
 * Controls of a live run, as the workbench shows them: the steer box (queued messages are chips you
 * can edit or delete until the run takes them; delivered ones become bubbles marked with their
 * turn), the mode and model switchers, and Stop (at the turn boundary) with Stop now beside it.
 * Every control answers at once and takes effect at the run's next turn boundary.
 *
 * @module
 */

import { useEffect, useState } from "preact/hooks";
import { useAction } from "../action.ts";
import { callApi, jsonBody } from "../api.ts";
import { paths } from "../paths.ts";
import { useApi, useStore } from "../store.ts";
import type { LiveView, SteeringMessage } from "../types.ts";
import { Icon } from "./icons.tsx";

/** How often the steering queue is read again while the run is live, in ms. */
const QUEUE_POLL_MS = 1000;

/**
 * The steer box of a live run.
 *
 * @param props Where the run's controls live (`paths.runControls`, or a conversation's turn), and
 *   whether it is still live.
 * @returns The box.
 */
export function SteerBox(props: { controls: string; live: boolean; label?: string }) {
  const store = useStore();
  const path = paths.messages(props.controls);
  const list = useApi<{ messages: SteeringMessage[] }>(path);
  const [draft, setDraft] = useState("");

  useEffect(() => {
    if (!props.live) return;
    const t = setInterval(() => void store.cache.load(path, true), QUEUE_POLL_MS);
    return () => clearInterval(t);
  }, [props.live, path]);

  const [send, sending] = useAction(async () => {
    const text = draft.trim();
    if (!text) return;
    await callApi(store.fetcher, path, jsonBody("POST", { text }));
    setDraft("");
    await store.cache.load(path, true);
  });

  const messages = list.data?.messages ?? [];
  return (
    <div class="steer" data-testid="steer-box">
      {messages.length
        ? (
          <ul class="steer-list" aria-label="Steering messages">
            {messages.map((m) => <SteerItem key={m.id} controls={props.controls} message={m} />)}
          </ul>
        )
        : null}
      {props.live
        ? (
          <form
            class="steer-form"
            onSubmit={(e) => {
              e.preventDefault();
              void send();
            }}
          >
            <textarea
              name="steer"
              rows={1}
              value={draft}
              aria-label={props.label ?? "Steer the run"}
              placeholder={props.label ?? "Steer the run: it reads this at its next turn"}
              onInput={(e) => setDraft((e.target as HTMLTextAreaElement).value)}
              onKeyDown={(e) => {
                if (e.key === "Enter" && !e.shiftKey) {
                  e.preventDefault();
                  void send();
                }
              }}
            />
            <button type="submit" class="primary" disabled={sending || !draft.trim()}>
              <Icon name="send" /> Steer
            </button>
          </form>
        )
        : null}
    </div>
  );
}

/** A queued message (editable, deletable) or a delivered one (read-only, with its turn). */
function SteerItem(props: { controls: string; message: SteeringMessage }) {
  const store = useStore();
  const m = props.message;
  const [editing, setEditing] = useState<string | null>(null);
  const listPath = paths.messages(props.controls);
  const [save, saving] = useAction(async () => {
    if (editing === null || !editing.trim()) return;
    await callApi(
      store.fetcher,
      paths.message(props.controls, m.id),
      jsonBody("PATCH", { text: editing }),
    );
    setEditing(null);
    await store.cache.load(listPath, true);
  });
  const [remove, removing] = useAction(async () => {
    await callApi(store.fetcher, paths.message(props.controls, m.id), { method: "DELETE" });
    await store.cache.load(listPath, true);
  });

  if (m.status === "delivered") {
    return (
      <li class="steer-item delivered" data-message={m.id} data-status="delivered">
        <span class="steer-text">{m.text}</span>
        <span class="muted small">delivered · turn {m.delivered_turn}</span>
      </li>
    );
  }
  return (
    <li class="steer-item queued" data-message={m.id} data-status="queued">
      {editing !== null
        ? (
          <form
            class="steer-edit"
            onSubmit={(e) => {
              e.preventDefault();
              void save();
            }}
          >
            <input
              name="steer-edit"
              value={editing}
              aria-label="Edit the queued message"
              onInput={(e) => setEditing((e.target as HTMLInputElement).value)}
              onKeyDown={(e) => {
                if (e.key === "Escape") setEditing(null);
              }}
            />
            <button type="submit" disabled={saving}>Save</button>
          </form>
        )
        : (
          <button
            type="button"
            class="steer-text link-like"
            title="Queued: click to edit until the run takes it"
            onClick={() => setEditing(m.text)}
          >
            {m.text}
          </button>
        )}
      <span class="muted small">queued</span>
      <button
        type="button"
        class="icon-button"
        title="Delete the queued message"
        disabled={removing}
        onClick={() => void remove()}
      >
        <Icon name="x" size={12} label="Delete the queued message" />
      </button>
    </li>
  );
}

/**
 * The mode and model switchers and the stop buttons of a live run.
 *
 * @param props The run and its live state.
 * @returns The controls.
 */
export function RunSwitches(props: { runId: string; state: LiveView }) {
  const store = useStore();
  const { state } = props;
  const [model, setModel] = useState("");
  const [switchModel, switchingModel] = useAction(async () => {
    if (!model.trim()) return;
    await callApi(store.fetcher, paths.runModel(props.runId), jsonBody("POST", { model }));
    setModel("");
    store.notify(`The next model call uses ${model}.`);
  });
  const [switchMode, switchingMode] = useAction(async (name: string) => {
    await callApi(store.fetcher, paths.runPlaybook(props.runId), jsonBody("POST", { name }));
    store.notify(`Switching to ${name} at the next turn; its gates decide.`);
  });
  const [stop, stopping] = useAction(async (now: boolean) => {
    await callApi(
      store.fetcher,
      paths.stop(paths.runControls(props.runId)),
      jsonBody("POST", now ? { now } : {}),
    );
    store.notify(now ? "Stopping now." : "Stopping at the end of this turn.");
  });
  return (
    <div class="run-switches" data-testid="run-switches">
      {state.playbooks.length
        ? (
          <label class="chip">
            <span class="chip-label">Mode</span>
            <select
              aria-label="Mode of the run"
              value={state.playbook ?? ""}
              disabled={switchingMode}
              onChange={(e) => void switchMode((e.target as HTMLSelectElement).value)}
            >
              {state.playbook === null ? <option value="">none</option> : null}
              {state.playbooks.map((p) => <option key={p} value={p}>{p}</option>)}
            </select>
          </label>
        )
        : null}
      <form
        class="chip model-switch"
        onSubmit={(e) => {
          e.preventDefault();
          void switchModel();
        }}
      >
        <span class="chip-label">Model</span>
        <input
          name="model"
          value={model}
          aria-label="Switch the model (provider:name)"
          placeholder={state.model}
          onInput={(e) => setModel((e.target as HTMLInputElement).value)}
        />
        <button type="submit" disabled={switchingModel || !model.trim()}>Switch</button>
      </form>
      <span class="stop-group">
        <button type="button" class="danger" disabled={stopping} onClick={() => void stop(false)}>
          <Icon name="stop" /> Stop
        </button>
        <button
          type="button"
          class="danger-outline"
          disabled={stopping}
          title="Abort the model call or tool in flight"
          onClick={() => void stop(true)}
        >
          Stop now
        </button>
      </span>
    </div>
  );
}
