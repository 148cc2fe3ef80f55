/**
 * Settings › Memory: the copilot's memories across conversations, global and per harness. List them,
 * filter by scope, search, inspect one and delete it. Memories are written only when the copilot calls
 * `remember_memory`; nothing here is added behind the reader's back.
 *
 * @module
 */

import { useAction } from "../action.ts";
import { useState } from "preact/hooks";
import { callApi } from "../api.ts";
import { Empty, Pending } from "../components/empty.tsx";
import { Icon } from "../components/icons.tsx";
import { Link } from "../components/link.tsx";
import { Segmented } from "../components/segmented.tsx";
import { Time } from "../components/time.tsx";
import { oneLine } from "../format.ts";
import { paths } from "../paths.ts";
import { HOME, withRoute } from "../route.ts";
import { useApi, useStore } from "../store.ts";
import type { Memory } from "../types.ts";

const SCOPES = [["", "All"], ["global", "Global"], ["harness", "Harness"]] as const;

/**
 * The memory page island.
 *
 * @returns The page.
 */
export function MemoryPage() {
  const store = useStore();
  const route = store.route.value;
  const scope = route.query.scope ?? "";
  const q = route.query.q ?? "";
  const list = useApi<{ memories: Memory[] }>(paths.memories(scope, q));
  const memories = list.data?.memories ?? [];
  const chosen = memories.find((m) => m.id === route.query.m);
  const [search, setSearch] = useState(q);

  return (
    <div class="settings" data-testid="memory-page">
      <header class="ws-head">
        <div class="ws-title">
          <p class="crumbs">Settings ›</p>
          <h1>Memory</h1>
        </div>
        <p class="muted">
          What the copilot remembers across conversations. It writes a memory only when it calls
          {" "}
          <code>remember_memory</code> — usually because you asked it to remember something.
        </p>
      </header>
      <div class="toolbar">
        <Segmented
          label="Filter by scope"
          choices={SCOPES}
          current={scope}
          to={(s) => withRoute(route, { query: { scope: s, m: "" } })}
        />
        <form
          class="search"
          role="search"
          onSubmit={(e) => {
            e.preventDefault();
            store.navigate(withRoute(route, { query: { q: search.trim(), m: "" } }));
          }}
        >
          <input
            type="search"
            name="q"
            value={search}
            placeholder="Search memories"
            aria-label="Search memories"
            onInput={(e) => setSearch((e.target as HTMLInputElement).value)}
          />
        </form>
      </div>
      {!list.data
        ? <Pending error={list.error} what="the memories" />
        : !memories.length
        ? (
          <Empty title={scope || q ? "No memories match" : "No memories yet"}>
            <p>
              Tell the copilot “remember that …” in a conversation and it keeps the fact here,
              globally or for the selected harness.
            </p>
          </Empty>
        )
        : (
          <div class="memory-split">
            <ul class="memory-list" aria-label="Memories">
              {memories.map((m) => (
                <li key={m.id}>
                  <Link
                    to={withRoute(route, { query: { m: m.id } })}
                    class={m.id === chosen?.id ? "memory-item active" : "memory-item"}
                    aria-current={m.id === chosen?.id ? "true" : undefined}
                    data-memory={m.id}
                  >
                    <span class="row">
                      <span class={`badge ${m.scope === "global" ? "badge-info" : "badge-muted"}`}>
                        {m.scope === "global" ? "global" : m.harness_id}
                      </span>
                      <Time iso={m.updated_at} />
                    </span>
                    <span class="memory-text">{oneLine(m.content, 140)}</span>
                  </Link>
                </li>
              ))}
            </ul>
            {chosen
              ? <MemoryDetail key={chosen.id} memory={chosen} />
              : (
                <Empty title="Select a memory">
                  <p>Its full text, where it came from and a way to delete it show here.</p>
                </Empty>
              )}
          </div>
        )}
    </div>
  );
}

function MemoryDetail(props: { memory: Memory }) {
  const store = useStore();
  const m = props.memory;
  const [confirm, setConfirm] = useState(false);
  const [remove, busy] = useAction(async () => {
    await callApi(store.fetcher, paths.memory(m.id), { method: "DELETE" });
    store.cache.refresh("/api/memories");
    store.navigate(withRoute(store.route.value, { query: { m: "" } }), { replace: true });
    store.notify("Memory deleted. The copilot no longer recalls it.");
  });
  return (
    <article class="memory-detail" data-memory-id={m.id}>
      <p class="memory-content">{m.content}</p>
      <dl class="facts">
        <div>
          <dt>Scope</dt>
          <dd>
            {m.scope === "global" ? "global (every harness)" : (
              <>
                harness <code>{m.harness_id}</code>
              </>
            )}
          </dd>
        </div>
        <div>
          <dt>Remembered</dt>
          <dd>
            <Time iso={m.created_at} />
          </dd>
        </div>
        <div>
          <dt>Updated</dt>
          <dd>
            <Time iso={m.updated_at} />
          </dd>
        </div>
        <div>
          <dt>From</dt>
          <dd>
            {m.conversation_id
              ? <Link to={{ ...HOME, conversation: m.conversation_id }}>the conversation</Link>
              : "—"}
          </dd>
        </div>
        <div>
          <dt>Id</dt>
          <dd>
            <code>{m.id}</code>
          </dd>
        </div>
      </dl>
      {confirm
        ? (
          <div class="row">
            <button
              type="button"
              class="danger"
              onClick={remove}
              disabled={busy}
              data-testid="confirm-delete"
            >
              <Icon name="trash" /> Delete for good
            </button>
            <button type="button" onClick={() => setConfirm(false)}>Keep it</button>
          </div>
        )
        : (
          <button type="button" class="danger-outline" onClick={() => setConfirm(true)}>
            <Icon name="trash" /> Delete…
          </button>
        )}
    </article>
  );
}
