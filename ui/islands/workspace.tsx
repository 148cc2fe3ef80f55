/**
 * The workspace of the selected harness: its header and the Use, Overview, Runs, Trace, Versions,
 * Spec and Improve tabs (keys 1 to 7). With no harness selected it says how to get one.
 *
 * @module
 */

import { Empty, Pending } from "../components/empty.tsx";
import { Icon } from "../components/icons.tsx";
import { Link } from "../components/link.tsx";
import { useShortcuts } from "../keys.ts";
import { paths } from "../paths.ts";
import { type Tab, TABS, withRoute } from "../route.ts";
import { useApi, useStore } from "../store.ts";
import { Improve } from "../tabs/improve.tsx";
import { Overview } from "../tabs/overview.tsx";
import { Runs } from "../tabs/runs.tsx";
import { SpecTab } from "../tabs/spec.tsx";
import { Trace } from "../tabs/trace.tsx";
import { Versions } from "../tabs/versions.tsx";
import { Use } from "../tabs/use.tsx";
import { RUN_INPUT_ID } from "../components/run_panel.tsx";
import { ForkBar } from "../components/forks.tsx";
import type { HarnessDetail } from "../types.ts";

/**
 * The workspace island.
 *
 * @returns The workspace.
 */
export function Workspace() {
  const store = useStore();
  const route = store.route.value;
  const harness = useApi<HarnessDetail>(route.harness ? paths.harness(route.harness) : null);

  /** Opens the Run panel (Trace without a run) and puts the cursor in its input. */
  const openRunPanel = () => {
    const r = store.route.value;
    if (!r.harness || r.page !== "workbench") return false;
    store.navigate(withRoute(r, { tab: "trace", run: null }));
    requestAnimationFrame(() => document.getElementById(RUN_INPUT_ID)?.focus());
  };
  useShortcuts({
    ...Object.fromEntries(TABS.map((t, i) => [
      String(i + 1),
      () => {
        const r = store.route.value;
        if (!r.harness || r.page !== "workbench") return false;
        store.navigate(withRoute(r, { tab: t.id }));
      },
    ])),
    r: openRunPanel,
  });

  if (!route.harness) {
    return (
      <div class="workspace-inner">
        <ShowChat bar />
        <Empty title="No harness selected">
          <p>
            Pick one in the rail, or ask the copilot to create one — for example “Create a harness
            that answers refund questions”. You can also press <strong>+</strong> beside Harnesses.
          </p>
        </Empty>
      </div>
    );
  }
  const h = harness.data;
  const name = (h?.spec?.name as string | undefined) ?? route.harness;
  return (
    <div class="workspace-inner">
      <header class="ws-head">
        <div class="ws-title">
          <h1>{name}</h1>
          <code class="ws-id">{route.harness}</code>
          {h
            ? (
              <>
                <span class={`badge ${h.valid ? "badge-ok" : "badge-bad"}`}>
                  {h.valid ? "valid" : "invalid"}
                </span>
                <span
                  class={`badge ${h.trusted ? "badge-ok" : "badge-muted"}`}
                  title={h.trusted
                    ? "Its code may run"
                    : "Its code refs will not run until you trust the folder"}
                >
                  <Icon name="shield" size={12} /> {h.trusted ? "trusted" : "not trusted"}
                </span>
              </>
            )
            : null}
          <button
            type="button"
            class="primary run-button"
            title="Run this harness (r)"
            data-testid="run-button"
            onClick={openRunPanel}
          >
            <Icon name="send" /> Run
          </button>
          <ShowChat />
        </div>
        <nav class="tabs" aria-label="Harness tabs">
          {TABS.map((t, i) => (
            <Link
              key={t.id}
              to={withRoute(route, { tab: t.id as Tab })}
              class={route.tab === t.id ? "tab active" : "tab"}
              aria-current={route.tab === t.id ? "page" : undefined}
              title={`${t.label} (${i + 1})`}
              data-tab={t.id}
            >
              {t.label}
            </Link>
          ))}
        </nav>
      </header>
      {h ? <ForkBar harness={h} /> : null}
      <div class="ws-body">
        {harness.error
          ? (
            <Empty
              title={harness.error.status === 404
                ? `No harness “${route.harness}”`
                : "The harness could not be read"}
            >
              <p>{harness.error.message}</p>
              <p>Pick another harness in the rail.</p>
            </Empty>
          )
          : !h
          ? <Pending what="the harness" />
          : <TabBody tab={route.tab} harness={h} />}
      </div>
    </div>
  );
}

function TabBody(props: { tab: Tab; harness: HarnessDetail }) {
  switch (props.tab) {
    case "use":
      return <Use harness={props.harness} />;
    case "overview":
      return <Overview harness={props.harness} />;
    case "runs":
      return <Runs harness={props.harness} />;
    case "trace":
      return <Trace harness={props.harness} />;
    case "versions":
      return <Versions harness={props.harness} />;
    case "spec":
      return <SpecTab harness={props.harness} />;
    case "improve":
      return <Improve harness={props.harness} />;
  }
}

/**
 * Brings the hidden chat back: a button in the header's row after Run (in the flow, never over
 * it), or in a bar of its own when no harness is selected.
 */
function ShowChat(props: { bar?: boolean }) {
  const store = useStore();
  if (!store.chatHidden.value) return null;
  if (props.bar) {
    return (
      <div class="ws-bar">
        <ShowChat />
      </div>
    );
  }
  return (
    <button
      type="button"
      class="show-chat"
      onClick={() => store.chatHidden.value = false}
      title="Show the conversation with the copilot"
    >
      <Icon name="chat" /> Chat
    </button>
  );
}
