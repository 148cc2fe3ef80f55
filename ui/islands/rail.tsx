/**
 * The left rail: the count of tool calls waiting for a person (with links to the runs that wait),
 * harnesses grouped by containment (forks and nested harnesses under their parent, never grouped by
 * name), the conversations, and the way to Settings › Memory.
 *
 * @module
 */

import { ErrorLine } from "../components/empty.tsx";
import { useAction } from "../action.ts";
import { useEffect, useState } from "preact/hooks";
import { ApiError, callApi, jsonBody } from "../api.ts";
import { Icon } from "../components/icons.tsx";
import { Link } from "../components/link.tsx";
import { Time } from "../components/time.tsx";
import { paths } from "../paths.ts";
import { HOME, type Route, withRoute } from "../route.ts";
import { useApi, useStore } from "../store.ts";
import type {
  ApprovalRecord,
  CatalogNode,
  Conversation,
  DuplicateFolder,
  WorkbenchApprovals,
} from "../types.ts";
import { usePollApprovals } from "../approvals.ts";
import { shortId } from "../format.ts";

/**
 * The rail island.
 *
 * @returns The rail.
 */
export function Rail() {
  const route = useStore().route.value;
  return (
    <nav class="rail" aria-label="Workbench">
      <div class="brand">
        <Link to={{ ...HOME, conversation: route.conversation }}>
          <span class="brand-mark" aria-hidden="true">◆</span> framework{" "}
          <span class="muted">workbench</span>
        </Link>
      </div>

      <ApprovalSection />

      <HarnessSection />

      <ConversationSection />

      <RailFoot />
    </nav>
  );
}

/**
 * The harnesses as a tree by folder, with Rescan and New harness, and the folders kept apart
 * because their id is taken. Folders added or removed on disk show up on request, and when the
 * window comes back.
 */
function HarnessSection() {
  const store = useStore();
  const route = store.route.value;
  const catalog = useApi<{ harnesses: CatalogNode[]; duplicates?: DuplicateFolder[] }>(
    paths.catalog(),
  );
  const [creating, setCreating] = useState(false);
  const [rescan, rescanning] = useAction(async () => {
    await callApi(store.fetcher, "/api/harnesses/rescan", { method: "POST" });
    store.cache.refresh(paths.catalog());
  });
  useEffect(() => {
    const onFocus = () => store.cache.refresh(paths.catalog());
    addEventListener("focus", onFocus);
    return () => removeEventListener("focus", onFocus);
  }, []);
  const harnesses = catalog.data?.harnesses ?? [];
  return (
    <section class="rail-section" aria-labelledby="rail-harnesses">
      <div class="rail-head">
        <h2 id="rail-harnesses">Harnesses</h2>
        <button
          type="button"
          class="icon-button"
          title="Look for harness folders added or removed on disk"
          data-testid="rescan"
          disabled={rescanning}
          onClick={() => void rescan()}
        >
          <Icon name="refresh" label="Refresh the harness list" />
        </button>
        <button
          type="button"
          class="icon-button"
          title="New harness"
          aria-expanded={creating}
          onClick={() => setCreating(!creating)}
        >
          <Icon name="plus" label="New harness" />
        </button>
      </div>
      {creating ? <NewHarness onDone={() => setCreating(false)} /> : null}
      {harnesses.length
        ? (
          <ul class="tree" role="tree" aria-label="Harnesses by folder">
            {harnesses.map((n) => <TreeNode key={n.id} node={n} route={route} depth={0} />)}
          </ul>
        )
        : catalog.data
        ? (
          <p class="rail-empty">
            No harnesses yet. Ask the copilot to create one, press + above, or put a harness folder
            in <code>./harnesses</code>.
          </p>
        )
        : <p class="rail-empty">{catalog.error ? catalog.error.message : "Loading…"}</p>}
      {(catalog.data?.duplicates ?? []).map((d) => (
        <p class="rail-note" role="note" data-duplicate={d.root_path} key={d.root_path}>
          <strong>{d.root_path}</strong> has the id <code>{d.id}</code>, which{" "}
          <span class="path">{d.owner_path}</span>{" "}
          already has. It is kept apart (its runs are its own) and not listed; give it its own id
          with <code>framework set {d.root_path} id &lt;new-id&gt; --string</code>.
        </p>
      ))}
    </section>
  );
}

/** At most this many waiting runs are linked in the rail (the badge counts them all). */
const WAITING_SHOWN = 5;

/**
 * The tool calls waiting for a person across the workbench's harnesses: a badge with their count
 * (linking the first run that waits), and a link to the Trace of each run that waits, where its card
 * is. It polls the list while the page is visible (`ui/approvals.ts` says why), and every part of the
 * page that sees a request come or go reads it again at once.
 */
function ApprovalSection() {
  usePollApprovals();
  const route = useStore().route.value;
  const pending = useApi<WorkbenchApprovals>(paths.pendingApprovals());
  const list = pending.data?.approvals ?? [];
  const count = pending.data?.count ?? 0;
  const first = list[0];
  const label = count === 1
    ? "1 tool call waits for your decision"
    : `${count || "No"} tool calls wait for your decision`;
  const more = count - WAITING_SHOWN;
  return (
    <section class="rail-section rail-approvals" aria-labelledby="rail-approvals">
      <div class="rail-head">
        <h2 id="rail-approvals">Approvals</h2>
        {first
          ? (
            <Link
              to={waitingRunRoute(route, first)}
              class="approvals-badge waiting"
              data-testid="approvals-badge"
              data-count={count}
              title={label}
              aria-label={label}
            >
              <Icon name="shield" size={12} /> {count}
            </Link>
          )
          : (
            <span
              class="approvals-badge"
              data-testid="approvals-badge"
              data-count={count}
              title={label}
              aria-label={label}
            >
              {count}
            </span>
          )}
      </div>
      {list.length
        ? (
          <ul class="waiting-list" aria-label="Runs waiting for your decision">
            {list.slice(0, WAITING_SHOWN).map((a) => (
              <li key={a.approval_id}>
                <Link
                  to={waitingRunRoute(route, a)}
                  class="waiting-run"
                  data-approval={a.approval_id}
                  title={`${a.harness_id}: run ${a.run_id} asks to call ${a.tool}`}
                >
                  <code>{a.tool}</code>
                  <span class="waiting-where">
                    {a.harness_id} · <span class="mono">{shortId(a.run_id)}</span>
                  </span>
                </Link>
              </li>
            ))}
          </ul>
        )
        : null}
      {more > 0 ? <p class="rail-empty">and {more} more</p> : null}
    </section>
  );
}

/** The Trace of the run a request waits in. */
function waitingRunRoute(route: Route, a: ApprovalRecord): Route {
  return withRoute({ ...route, page: "workbench" }, {
    harness: a.harness_id,
    tab: "trace",
    run: a.run_id,
  });
}

/** The conversations, newest first, and New conversation (bound to the harness shown). */
function ConversationSection() {
  const store = useStore();
  const route = store.route.value;
  const convs = useApi<{ conversations: Conversation[] }>(paths.conversations());
  const conversations = convs.data?.conversations ?? [];
  const [newChat] = useAction(async () => {
    const c = await callApi<Conversation>(
      store.fetcher,
      paths.conversations(),
      jsonBody("POST", route.harness ? { harness_id: route.harness } : {}),
    );
    store.cache.refresh(paths.conversations());
    store.navigate({ ...route, conversation: c.id, page: "workbench" });
    document.getElementById("composer")?.focus();
  });
  return (
    <section class="rail-section rail-convs" aria-labelledby="rail-convs">
      <div class="rail-head">
        <h2 id="rail-convs">Conversations</h2>
        <button type="button" class="icon-button" title="New conversation" onClick={newChat}>
          <Icon name="plus" label="New conversation" />
        </button>
      </div>
      {conversations.length
        ? (
          <ul class="conv-list">
            {conversations.map((c) => (
              <li key={c.id}>
                <Link
                  to={conversationRoute(route, c)}
                  class={c.id === route.conversation ? "conv active" : "conv"}
                  aria-current={c.id === route.conversation ? "page" : undefined}
                >
                  <span class="conv-title">{c.title}</span>
                  <span class="conv-time">
                    <Time iso={c.updated_at} />
                  </span>
                </Link>
              </li>
            ))}
          </ul>
        )
        : <p class="rail-empty">No conversations yet. Write to the copilot to start one.</p>}
    </section>
  );
}

/** Settings › Memory, the copilot's model (or that none is set), and the keys. */
function RailFoot() {
  const store = useStore();
  const route = store.route.value;
  return (
    <footer class="rail-foot">
      <Link
        to={{ ...HOME, page: "memory", conversation: route.conversation }}
        class={route.page === "memory" ? "rail-link active" : "rail-link"}
        aria-current={route.page === "memory" ? "page" : undefined}
      >
        <Icon name="gear" /> Settings › Memory
      </Link>
      <p class="copilot-status" title={store.health.copilot?.source ?? ""}>
        Copilot: {store.health.copilot
          ? <code>{store.health.copilot.model}</code>
          : <span class="warn-text">no model set</span>}
      </p>
      <p class="keys-hint">
        <kbd>/</kbd> chat · <kbd>1</kbd>–<kbd>7</kbd> tabs · <kbd>j</kbd>/<kbd>k</kbd> move
      </p>
    </footer>
  );
}

function TreeNode(props: { node: CatalogNode; route: Route; depth: number }) {
  const { node, route } = props;
  const active = route.page === "workbench" && route.harness === node.id;
  return (
    <li
      role="treeitem"
      aria-expanded={node.children.length ? true : undefined}
      aria-selected={active}
    >
      <Link
        to={withRoute(route, { harness: node.id, page: "workbench" })}
        class={active ? "tree-item active" : "tree-item"}
        aria-current={active ? "page" : undefined}
        title={node.root_path}
        data-harness={node.id}
      >
        {node.is_fork ? <Icon name="fork" label="fork" /> : <Icon name="harness" />}
        <span class="tree-name">{node.name}</span>
        {node.name !== node.id ? <span class="tree-id">{node.id}</span> : null}
        {node.valid
          ? null
          : <span class="badge badge-bad" title="harness.yaml has errors">invalid</span>}
      </Link>
      {node.children.length
        ? (
          <ul role="group">
            {node.children.map((c) => (
              <TreeNode key={c.id} node={c} route={route} depth={props.depth + 1} />
            ))}
          </ul>
        )
        : null}
    </li>
  );
}

function NewHarness(props: { onDone: () => void }) {
  const store = useStore();
  const [id, setId] = useState("");
  const [template, setTemplate] = useState("blank");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (ev: Event) => {
    ev.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await callApi(store.fetcher, "/api/harnesses", jsonBody("POST", { id: id.trim(), template }));
      store.cache.refresh(paths.catalog());
      store.navigate(withRoute(store.route.value, { harness: id.trim(), page: "workbench" }));
      props.onDone();
    } catch (err) {
      setError(err instanceof ApiError ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="new-harness" onSubmit={submit}>
      <label>
        Id
        <input
          name="id"
          value={id}
          required
          pattern="[a-z0-9]+(-[a-z0-9]+)*"
          maxLength={64}
          title="Lowercase letters, digits and single dashes, like support-bot"
          placeholder="support-bot"
          autoComplete="off"
          onInput={(e) => setId((e.target as HTMLInputElement).value)}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? "new-harness-error" : undefined}
        />
      </label>
      <label>
        Template
        <select
          value={template}
          onChange={(e) => setTemplate((e.target as HTMLSelectElement).value)}
        >
          <option value="blank">blank</option>
          <option value="hello">hello (example)</option>
        </select>
      </label>
      <ErrorLine error={error} id="new-harness-error" />
      <div class="row">
        <button type="submit" class="primary" disabled={busy || !id.trim()}>Create</button>
        <button type="button" onClick={props.onDone}>Cancel</button>
      </div>
    </form>
  );
}

/** Opening a conversation brings back the harness and run it had selected. */
function conversationRoute(route: Route, c: Conversation): Route {
  const base: Route = { ...route, page: "workbench" };
  const target = c.selected_harness_id
    ? withRoute(base, { harness: c.selected_harness_id, run: c.selected_run_id })
    : base;
  return { ...target, conversation: c.id };
}
