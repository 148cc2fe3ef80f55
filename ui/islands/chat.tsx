/**
 * The conversation with the copilot: the messages with their tool activity (inline, collapsible) and
 * artifacts, the selected harness and run (visible and changeable), and a composer whose reply streams
 * in as the copilot works. The conversation is stored as it happens, so a refresh finds it again.
 *
 * @module
 */

import { useAction } from "../action.ts";
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { ApiError, callApi, jsonBody, readSse } from "../api.ts";
import { Icon } from "../components/icons.tsx";
import { JsonView } from "../components/json_view.tsx";
import { ApprovalCard } from "../components/approval_card.tsx";
import { useFollowApprovals, usePendingApprovals } from "../approvals.ts";
import { SteerBox } from "../components/live_controls.tsx";
import { SLASH_MENU_ID, SlashMenu, useSlashMenu } from "../components/slash_menu.tsx";
import { Link } from "../components/link.tsx";
import { Markdown } from "../components/markdown.tsx";
import { TurnHandOffs } from "../components/turn_hand_offs.tsx";
import { RunStatusBadge } from "../components/status.tsx";
import { Time } from "../components/time.tsx";
import { oneLine, shortId } from "../format.ts";
import { useShortcuts } from "../keys.ts";
import { paths } from "../paths.ts";
import { type Route, withRoute } from "../route.ts";
import { type Store, useApi, useStore } from "../store.ts";
import type {
  Artifact,
  CatalogNode,
  ChatMessage,
  Conversation,
  ConversationView,
} from "../types.ts";

/** A tool call seen live. */
interface LiveTool {
  id: string;
  turn: number;
  name: string;
  arguments: unknown;
  ok?: boolean;
  result?: string;
}

/** A turn in flight. */
interface LiveTurn {
  /** The conversation it belongs to (null until the first message creates one). */
  conversationId: string | null;
  text: string;
  runId: string | null;
  /** Reply text by model turn. */
  drafts: Record<number, string>;
  tools: LiveTool[];
  /** The target runs the turn's tools started (a card shows when one waits for a person). */
  targets: { run_id: string; harness_id: string }[];
  error: string | null;
}

type ToolPart = Extract<ChatMessage["parts"][number], { type: "tool" }>;

/**
 * The chat island.
 *
 * @returns The chat.
 */
export function Chat() {
  const store = useStore();
  const route = store.route.value;
  const conv = useApi<ConversationView>(
    route.conversation ? paths.conversation(route.conversation) : null,
  );
  const catalog = useApi<{ harnesses: CatalogNode[] }>(paths.catalog());
  const [live, setLive] = useState<LiveTurn | null>(null);
  const [draft, setDraft] = useState("");
  const logRef = useRef<HTMLDivElement>(null);
  const stick = useRef(true);

  const messages = conv.data?.messages ?? [];
  const artifacts = conv.data?.artifacts ?? [];
  // A turn of this page shows in its own conversation only.
  const inFlight = !!live && !live.error;
  const shownLive = live && live.conversationId === route.conversation ? live : null;
  // A turn the server is still working on (sent before a refresh, or from another tab).
  const pendingRun = shownLive ? null : conv.data?.pending_run_id ?? null;

  useSelectionSync(
    conv.data?.conversation,
    catalog.data?.harnesses,
    inFlight && live?.conversationId === conv.data?.conversation.id,
  );

  useReloadWhilePending(store, pendingRun, route.conversation);
  // Follow the conversation as it grows, unless the reader scrolled up.
  useLayoutEffect(() => {
    const el = logRef.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
  });
  useComposerKey(store);

  const send = async (text: string) => {
    // One turn at a time from this page; a failed turn does not block the next.
    if (!text.trim() || inFlight || pendingRun) return;
    setDraft("");
    stick.current = true;
    const turn: LiveTurn = {
      conversationId: route.conversation,
      text,
      runId: null,
      drafts: {},
      tools: [],
      targets: [],
      error: null,
    };
    setLive({ ...turn });
    try {
      await runTurn(
        store,
        route,
        text,
        (t) =>
          setLive({ ...t, drafts: { ...t.drafts }, tools: [...t.tools], targets: [...t.targets] }),
        turn,
      );
      setLive(null);
    } catch (err) {
      turn.error = err instanceof ApiError ? err.message : String(err);
      setLive({ ...turn });
    }
  };

  // The turn in flight is steered and stopped through its conversation (the run routes do not show
  // the copilot's runs).
  const turnConversation = shownLive?.conversationId ?? route.conversation;
  const turnControls = turnConversation && (shownLive?.runId ?? pendingRun)
    ? paths.turnControls(turnConversation)
    : null;
  const [stop, stopping] = useAction(async () => {
    // The person means "stop now": the copilot's call in flight is aborted.
    if (turnControls) {
      await callApi(store.fetcher, paths.stop(turnControls), jsonBody("POST", { now: true }));
    }
  });

  const flat = flatten(catalog.data?.harnesses ?? []);
  const title = conv.data?.conversation.title ?? (route.conversation ? "…" : "New conversation");

  return (
    <section class="chat" aria-label="Conversation with the copilot">
      <ChatHead title={title} route={route} harnesses={flat} />

      {store.health.copilot ? null : <NoCopilot />}

      <ChatLog
        logRef={logRef}
        stick={stick}
        messages={messages}
        artifacts={artifacts}
        route={route}
        pendingRun={pendingRun}
        live={shownLive}
        suggest={setDraft}
        copilot={!!store.health.copilot}
        approvalRuns={chatRuns(artifacts, shownLive, conv.data?.turn_runs ?? [])}
      />

      <Composer
        draft={draft}
        setDraft={setDraft}
        send={send}
        busy={inFlight || !!pendingRun}
        inFlight={inFlight}
        stoppable={(!!shownLive && !shownLive.error) || !!pendingRun}
        stop={stop}
        stopping={stopping || !(shownLive?.runId ?? pendingRun)}
        steerControls={(shownLive && !shownLive.error) || pendingRun ? turnControls : null}
      />
    </section>
  );
}

/** A reply the server is still writing (a pending run): looks again until it is stored. */
function useReloadWhilePending(
  store: Store,
  pendingRun: string | null,
  conversation: string | null,
) {
  useEffect(() => {
    if (!pendingRun || !conversation) return;
    const t = setInterval(
      () => void store.cache.load(paths.conversation(conversation), true),
      1500,
    );
    return () => clearInterval(t);
  }, [pendingRun, conversation]);
}

/** The `/` key: a hidden chat comes back and the composer takes the focus. */
function useComposerKey(store: Store) {
  useShortcuts({
    "/": () => {
      // A hidden chat comes back: the key means "talk to the copilot".
      store.chatHidden.value = false;
      requestAnimationFrame(() => document.getElementById("composer")?.focus());
    },
  });
}

/** Says how to give the copilot a model, and what works without one (the slash commands). */
function NoCopilot() {
  return (
    <div class="banner banner-warn" role="note" data-testid="no-copilot">
      No copilot model is set. Start the workbench with <code>FRAMEWORK_COPILOT_MODEL</code> (e.g.
      {" "}
      <code>openai:gpt-4.1-mini</code>) or a provider key such as{" "}
      <code>OPENAI_API_KEY</code>. Everything else works without it, and so do the chat's commands:
      type <kbd>/</kbd> (<code>/run hello</code>, <code>/measure</code>, <code>/help</code>).
    </div>
  );
}

/**
 * Keeps the stored selection of the shown conversation in step with the workspace's, but only with
 * what exists: an address naming an unknown harness or run is shown as such and never stored (nor
 * sent to the copilot).
 */
function useSelectionSync(
  conversation: Conversation | undefined,
  harnesses: CatalogNode[] | undefined,
  busy: boolean,
) {
  const store = useStore();
  const route = store.route.value;
  // Keep the stored selection in step with the workspace's, but only with what exists: an address
  // naming an unknown harness or run is shown as such and never stored (nor sent to the copilot).
  const selectedRun = useApi<{ run_id: string; harness_id: string }>(
    route.run ? paths.trace(route.run, 0) : null,
  );
  useEffect(() => {
    const c = conversation;
    if (!c || route.page !== "workbench" || busy) return;
    if (route.harness) {
      if (!harnesses) return;
      if (!flatten(harnesses).some((h) => h.id === route.harness)) return;
    }
    let run = route.run;
    if (run) {
      if (selectedRun.loading || (!selectedRun.data && !selectedRun.error)) return;
      const found = selectedRun.data;
      if (!found || found.run_id !== run || (route.harness && found.harness_id !== route.harness)) {
        run = null;
      }
    }
    if (c.selected_harness_id === route.harness && c.selected_run_id === run) return;
    const patch = { selected_harness_id: route.harness, selected_run_id: run };
    callApi<Conversation>(store.fetcher, paths.conversation(c.id), jsonBody("PATCH", patch))
      .then((updated) => {
        const entry = store.cache.entry<ConversationView>(paths.conversation(c.id));
        if (entry.value.data) {
          entry.value = { ...entry.value, data: { ...entry.value.data, conversation: updated } };
        }
      })
      .catch(() => {/* an unknown harness id: the workspace says so */});
  }, [
    conversation?.id,
    route.harness,
    route.run,
    busy,
    !!harnesses,
    selectedRun.data,
    selectedRun.error,
    selectedRun.loading,
  ]);
}

/** The chat's head: its title, the hide button and the selection sent with each message. */
function ChatHead(
  props: { title: string; route: Route; harnesses: { id: string; label: string }[] },
) {
  const store = useStore();
  const { route, title } = props;
  const flat = props.harnesses;
  return (
    <header class="chat-head">
      <div class="chat-title-row">
        <h2 class="chat-title" title={title}>{title}</h2>
        <button
          type="button"
          class="icon-button chat-toggle"
          title="Hide the chat (the workspace takes its room)"
          onClick={() => store.chatHidden.value = true}
        >
          <Icon name="chevron" label="Hide the chat" />
        </button>
      </div>
      <div class="selection" aria-label="Selection sent with each message">
        <label class="chip">
          <span class="chip-label">Harness</span>
          <select
            aria-label="Selected harness"
            value={route.harness ?? ""}
            onChange={(e) => {
              const v = (e.target as HTMLSelectElement).value || null;
              store.navigate(withRoute({ ...route, page: "workbench" }, { harness: v }));
            }}
          >
            <option value="">none</option>
            {flat.map((h) => <option key={h.id} value={h.id}>{h.label}</option>)}
            {route.harness && !flat.some((h) => h.id === route.harness)
              ? <option value={route.harness}>{route.harness}</option>
              : null}
          </select>
        </label>
        {route.run
          ? (
            <span class="chip" data-testid="selected-run">
              <span class="chip-label">Run</span>
              <Link to={{ ...route, page: "workbench", tab: "trace" }} class="mono">
                {shortId(route.run)}
              </Link>
              <button
                type="button"
                class="chip-clear"
                title="Clear the selected run"
                onClick={() => store.navigate({ ...route, run: null })}
              >
                <Icon name="x" size={12} label="Clear the selected run" />
              </button>
            </span>
          )
          : (
            <span class="chip chip-empty">
              <span class="chip-label">Run</span> none
            </span>
          )}
      </div>
    </header>
  );
}

/** The conversation so far: a welcome with suggestions, the messages, and the turn in flight. */
function ChatLog(props: {
  logRef: { current: HTMLDivElement | null };
  stick: { current: boolean };
  messages: ChatMessage[];
  artifacts: Artifact[];
  route: Route;
  pendingRun: string | null;
  live: LiveTurn | null;
  suggest: (text: string) => void;
  /** Whether the copilot has a model (else the welcome offers commands). */
  copilot: boolean;
  /** The runs this conversation started (their requests waiting for a person show as cards). */
  approvalRuns: ChatRun[];
}) {
  const { logRef, stick, messages, artifacts, route, pendingRun } = props;
  const shownLive = props.live;
  const setDraft = props.suggest;
  return (
    <div
      class="chat-log"
      ref={logRef}
      role="log"
      aria-live="polite"
      onScroll={(e) => {
        const el = e.currentTarget;
        stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
      }}
    >
      {!messages.length && !shownLive
        ? (
          <div class="chat-welcome">
            <p class="empty-title">
              {props.copilot
                ? "Ask the copilot to build, run, debug or improve a harness."
                : "Run, steer, fork, evaluate and improve the selected harness with commands."}
            </p>
            <p class="muted small" data-testid="commands-note">
              {props.copilot
                ? "Or type / for commands that call the copilot's tools directly."
                : "Type / for the list: each command calls one of the copilot's tools directly, no model needed, and its result shows here as the copilot's would."}
            </p>
            <ul class="suggestions">
              {(props.copilot ? SUGGESTIONS : COMMAND_SUGGESTIONS).map((s) => (
                <li key={s}>
                  <button
                    type="button"
                    class="suggestion"
                    onClick={() => {
                      setDraft(s);
                      // Enter sends it from here: the composer has the focus, not the button.
                      document.getElementById("composer")?.focus();
                    }}
                  >
                    {s}
                  </button>
                </li>
              ))}
            </ul>
          </div>
        )
        : null}
      {messages.map((m) => (
        <MessageView
          key={m.id}
          message={m}
          artifacts={artifacts.filter((a) => a.message_id === m.id)}
          route={route}
        />
      ))}
      {pendingRun
        ? (
          <p class="muted working" data-testid="pending-turn">
            <span class="spinner small" /> The copilot is still working on this…
          </p>
        )
        : null}
      {shownLive
        ? (
          <LiveView
            turn={shownLive}
            showUser={!messages.some((m) =>
              m.content === shownLive.text && m.role === "user" && m === messages.at(-1)
            )}
          />
        )
        : null}
      <ChatApprovals runs={props.approvalRuns} />
    </div>
  );
}

/** A run this conversation started, and whether it may still be going. */
interface ChatRun {
  run_id: string;
  harness_id: string;
  live: boolean;
}

/**
 * The runs this conversation started: those of its run artifacts (a run still going when its card
 * was made may be going yet), and the target runs of the turn in flight (this page's, or one a page
 * opened mid-turn reads from the conversation).
 */
function chatRuns(
  artifacts: Artifact[],
  live: LiveTurn | null,
  turnRuns: { run_id: string; harness_id: string }[],
): ChatRun[] {
  const runs = new Map<string, ChatRun>();
  for (const a of artifacts) {
    if (a.kind !== "run" || !a.harness_id) continue;
    let content: { run_id?: unknown; status?: unknown } = {};
    try {
      content = JSON.parse(a.content) ?? {};
    } catch {
      continue;
    }
    if (typeof content.run_id !== "string") continue;
    runs.set(content.run_id, {
      run_id: content.run_id,
      harness_id: a.harness_id,
      live: content.status === "running",
    });
  }
  for (const t of [...turnRuns, ...(live?.targets ?? [])]) runs.set(t.run_id, { ...t, live: true });
  return [...runs.values()];
}

/**
 * The cards of the requests waiting for a person in runs this conversation started (`/run`, the
 * copilot's `execute_run`), below the conversation: the same card as Trace's, compact. The runs that
 * may be going are followed, so a card comes as soon as its run asks and goes once it is decided.
 */
function ChatApprovals(props: { runs: ChatRun[] }) {
  const store = useStore();
  const pending = usePendingApprovals();
  const [decided, setDecided] = useState<ReadonlySet<string>>(new Set());
  useFollowApprovals(props.runs.filter((r) => r.live).map((r) => r.run_id));
  const ids = new Set(props.runs.map((r) => r.run_id));
  const waiting = pending.filter((a) => ids.has(a.run_id) && !decided.has(a.approval_id));
  if (!waiting.length) return null;
  return (
    <div class="chat-approvals" data-testid="chat-approvals">
      {waiting.map((a) => (
        <ApprovalCard
          key={a.approval_id}
          request={a}
          compact
          onDecided={(record) => {
            setDecided((d) => new Set(d).add(record.approval_id));
            if (record.resumed_run_id) {
              store.notify(`The run goes on as ${shortId(record.resumed_run_id)}.`);
            }
          }}
        />
      ))}
    </div>
  );
}

/** The composer: Enter sends; while a turn is in flight, Stop. */
function Composer(props: {
  draft: string;
  setDraft: (text: string) => void;
  send: (text: string) => Promise<void>;
  busy: boolean;
  inFlight: boolean;
  stoppable: boolean;
  stop: () => Promise<void>;
  stopping: boolean;
  /** Where the copilot's turn in flight is steered: the composer steers it. */
  steerControls: string | null;
}) {
  const { draft, setDraft, send, inFlight } = props;
  const slash = useSlashMenu(draft, setDraft);
  const stopButton = (
    <button
      type="button"
      class="danger"
      onClick={() => void props.stop()}
      disabled={props.stopping}
      title="Stop the copilot's run now"
    >
      <Icon name="stop" /> Stop
    </button>
  );
  if (props.steerControls) {
    return (
      <div class="composer composer-steer">
        <SteerBox
          controls={props.steerControls}
          live
          label="Steer the copilot: it reads this at its next turn"
        />
        {stopButton}
      </div>
    );
  }
  return (
    <form
      class="composer"
      onSubmit={(e) => {
        e.preventDefault();
        void send(draft);
      }}
    >
      <SlashMenu shown={slash.shown} current={slash.current} complete={slash.complete} />
      <textarea
        id="composer"
        name="message"
        rows={3}
        value={draft}
        placeholder={props.busy
          ? "The copilot is working…"
          : "Message the copilot, or / for commands (Enter sends, Shift+Enter for a new line)"}
        aria-label="Message to the copilot"
        aria-autocomplete="list"
        aria-controls={slash.shown.length ? SLASH_MENU_ID : undefined}
        aria-expanded={slash.shown.length > 0}
        aria-activedescendant={slash.current ? `slash-${slash.current.name}` : undefined}
        onInput={(e) => setDraft((e.target as HTMLTextAreaElement).value)}
        onKeyDown={(e) => {
          if (!e.isComposing && slash.onKey(e)) return;
          if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
            e.preventDefault();
            void send(draft);
          }
        }}
      />
      {props.stoppable ? stopButton : (
        <button
          type="submit"
          class="primary"
          disabled={!draft.trim() || inFlight}
          title={inFlight ? "The copilot is working in another conversation" : "Send (Enter)"}
        >
          <Icon name="send" /> Send
        </button>
      )}
    </form>
  );
}

/** What the welcome offers without a copilot model: commands. */
const COMMAND_SUGGESTIONS = ["/run hello", "/measure", "/eval", "/help"];

const SUGGESTIONS = [
  "Create a harness that answers questions about refunds",
  "Run the selected harness with “hello”",
  "Why did the last run fail?",
  "Propose an improvement for the selected harness",
];

/** Sends one message and follows the turn's frames until the reply is stored. */
async function runTurn(
  store: Store,
  route: Route,
  text: string,
  update: (t: LiveTurn) => void,
  turn: LiveTurn,
): Promise<void> {
  let conversationId = route.conversation;
  if (!conversationId) {
    const c = await callApi<Conversation>(
      store.fetcher,
      "/api/conversations",
      jsonBody("POST", route.harness ? { harness_id: route.harness } : {}),
    );
    conversationId = c.id;
    turn.conversationId = c.id;
    store.cache.entry<ConversationView>(paths.conversation(c.id)).value = {
      data: { conversation: c, messages: [], artifacts: [], pending_run_id: null },
      loading: false,
    };
    store.navigate({ ...store.route.value, conversation: c.id }, { replace: true });
    update(turn);
  }
  const res = await store.fetcher(
    `/api/conversations/${encodeURIComponent(conversationId)}/messages`,
    jsonBody("POST", {
      message: text,
      selection: { harness_id: route.harness, run_id: route.run },
    }),
  );
  if (!res.ok || !(res.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
    const body = await res.json().catch(() => null);
    throw new ApiError(
      res.status,
      body?.error?.kind ?? "error",
      body?.error?.message ?? `HTTP ${res.status}`,
    );
  }
  let selection = null as { harness_id: string | null; run_id: string | null } | null;
  for await (const frame of readSse(res)) {
    const d = frame.data as Record<string, unknown>;
    if (frame.event === "run_accepted") {
      turn.runId = d.run_id as string;
      // The user's message is stored now: show it from the conversation.
      void store.cache.load(paths.conversation(conversationId), true);
    } else if (frame.event === "target_run") {
      turn.targets.push({
        run_id: d.target_run_id as string,
        harness_id: d.harness_id as string,
      });
    } else if (frame.event === "delta") {
      const t = d.turn as number;
      turn.drafts[t] = (turn.drafts[t] ?? "") + (d.text as string);
    } else if (frame.event === "trace") {
      const p = d.payload as Record<string, unknown>;
      if (d.type === "model_response") turn.drafts[p.turn as number] = p.text as string;
      else if (d.type === "model_retry") turn.drafts[p.turn as number] = "";
      else if (d.type === "tool_call") {
        turn.tools.push({
          id: p.id as string,
          turn: p.turn as number,
          name: p.name as string,
          arguments: p.arguments,
        });
      } else if (d.type === "tool_result") {
        const t = turn.tools.find((x) => x.id === p.id);
        if (t) {
          t.ok = p.ok as boolean;
          t.result = String(p.content ?? p.error ?? "");
        }
      }
    } else if (frame.event === "message") {
      selection = d.selection as typeof selection;
    }
    update(turn);
  }
  await store.cache.load(paths.conversation(conversationId), true);
  store.cache.refresh(paths.catalog(), paths.conversations(), "/api/harnesses/", "/api/runs/");
  const now = store.route.value;
  // The turn's selection moves the workspace only while its conversation is the one shown.
  if (
    selection && now.conversation === conversationId &&
    (selection.harness_id !== now.harness || selection.run_id !== now.run)
  ) {
    store.navigate(
      withRoute({ ...now, page: "workbench" }, {
        harness: selection.harness_id,
        run: selection.run_id,
      }),
    );
  }
}

/**
 * A stored message's body in the order it was said: text and tool activity interleaved (messages
 * stored before text parts existed show their tools, then their text).
 */
function MessageBody(props: { message: ChatMessage }) {
  const m = props.message;
  if (m.role === "user") return <p class="msg-text">{m.content}</p>;
  const ordered = m.parts.some((p) => p.type === "text");
  const blocks: ({ kind: "text"; text: string } | { kind: "tools"; tools: ToolPart[] })[] = [];
  for (const p of m.parts) {
    if (p.type === "text" && ordered) blocks.push({ kind: "text", text: p.text });
    if (p.type === "tool") {
      const last = blocks.at(-1);
      if (last?.kind === "tools") last.tools.push(p);
      else blocks.push({ kind: "tools", tools: [p] });
    }
  }
  if (!ordered && m.content) blocks.push({ kind: "text", text: m.content });
  return (
    <>
      {blocks.map((b, i) =>
        b.kind === "text"
          ? <Markdown key={i} text={b.text} />
          : <ToolList key={i} tools={b.tools.map((t, k) => ({ ...t, key: `${i}-${k}` }))} />
      )}
    </>
  );
}

function MessageView(props: { message: ChatMessage; artifacts: Artifact[]; route: Route }) {
  const { message: m } = props;
  const notices = m.parts.filter((p) => p.type === "notice") as { text: string }[];
  return (
    <article class={`msg msg-${m.role}`} data-message-id={m.id} data-role={m.role}>
      <header class="msg-head">
        <span class="msg-who">{m.role === "user" ? "You" : "Copilot"}</span>
        <Time iso={m.created_at} />
      </header>
      <MessageBody message={m} />
      {notices.map((n, i) => <p key={i} class="notice" role="note">{n.text}</p>)}
      {props.artifacts.length
        ? (
          <ul class="artifacts">
            {props.artifacts.map((a) => (
              <ArtifactCard
                key={a.id}
                artifact={a}
                route={props.route}
              />
            ))}
          </ul>
        )
        : null}
      <TurnHandOffs artifacts={props.artifacts} route={props.route} />
    </article>
  );
}

function LiveView(props: { turn: LiveTurn; showUser: boolean }) {
  const { turn } = props;
  const turns = [
    ...new Set([...Object.keys(turn.drafts).map(Number), ...turn.tools.map((t) => t.turn)]),
  ].sort((a, b) => a - b);
  return (
    <>
      {props.showUser
        ? (
          <article class="msg msg-user" data-role="user">
            <header class="msg-head">
              <span class="msg-who">You</span>
            </header>
            <p class="msg-text">{turn.text}</p>
          </article>
        )
        : null}
      <article class="msg msg-assistant msg-live" data-role="assistant" aria-busy={!turn.error}>
        <header class="msg-head">
          <span class="msg-who">Copilot</span>
          {turn.error ? null : <span class="spinner" aria-label="working" />}
        </header>
        {turns.map((t) => (
          <div key={t} class="live-turn">
            {turn.drafts[t] ? <Markdown text={turn.drafts[t]!} /> : null}
            <ToolList
              tools={turn.tools.filter((x) => x.turn === t).map((x) => ({
                key: x.id,
                name: x.name,
                arguments: x.arguments,
                ok: x.ok,
                result: x.result,
              }))}
            />
          </div>
        ))}
        {!turns.length && !turn.error ? <p class="muted">Thinking…</p> : null}
        {turn.error ? <p class="error-line" role="alert">{turn.error}</p> : null}
      </article>
    </>
  );
}

function ToolList(
  props: {
    tools: {
      key: string;
      name: string;
      arguments: unknown;
      ok?: boolean | undefined;
      result?: string | undefined;
    }[];
  },
) {
  if (!props.tools.length) return null;
  return (
    <div class="tools">
      {props.tools.map((t) => (
        <details
          key={t.key}
          class={`tool ${t.ok === false ? "tool-failed" : ""}`}
          data-tool={t.name}
        >
          <summary>
            {t.ok === undefined
              ? <span class="spinner small" aria-label="running" />
              : <Icon name={t.ok ? "check" : "x"} label={t.ok ? "succeeded" : "failed"} />}
            <span class="tool-name">{t.name}</span>
            <span class="tool-args">{oneLine(t.arguments, 80)}</span>
          </summary>
          <div class="tool-body">
            <p class="tool-caption">Arguments</p>
            <JsonView value={t.arguments} open={3} />
            {t.result !== undefined
              ? (
                <>
                  <p class="tool-caption">Result</p>
                  <ToolResult text={t.result} />
                </>
              )
              : null}
          </div>
        </details>
      ))}
    </div>
  );
}

function ArtifactCard(props: { artifact: Artifact; route: Route }) {
  const { artifact: a, route } = props;
  let content: Record<string, unknown> = {};
  try {
    content = JSON.parse(a.content);
  } catch {
    // plain text
  }
  const base: Route = { ...route, page: "workbench" };
  const target = a.kind === "run" && typeof content.run_id === "string"
    ? withRoute(base, { harness: a.harness_id, tab: "trace", run: content.run_id })
    : a.kind === "proposal" && typeof content.id === "string"
    ? withRoute(base, { harness: a.harness_id, tab: "improve", query: { p: content.id } })
    : a.kind === "interface"
    ? withRoute(base, { harness: a.harness_id, tab: "use" })
    : withRoute(base, { harness: a.harness_id, tab: "overview" });
  return (
    <li class={`artifact artifact-${a.kind}`} data-artifact={a.kind}>
      <span class="artifact-kind">{a.kind}</span>
      <Link to={target} class="artifact-title">{a.title}</Link>
      {a.kind === "run" && typeof content.status === "string"
        ? (
          <RunStatusBadge
            status={content.status}
            reason={(content.error as { reason?: string } | undefined)?.reason}
          />
        )
        : null}
    </li>
  );
}

function flatten(nodes: CatalogNode[], depth = 0): { id: string; label: string }[] {
  return nodes.flatMap((n) => [
    { id: n.id, label: `${"\u00a0\u00a0".repeat(depth)}${n.name}` },
    ...flatten(n.children, depth + 1),
  ]);
}

/** A tool's result: a JSON tree when it is JSON, else its text. */
function ToolResult(props: { text: string }) {
  let value: unknown;
  try {
    value = JSON.parse(props.text);
  } catch {
    return <pre class="tool-result">{props.text}</pre>;
  }
  return value !== null && typeof value === "object"
    ? (
      <div class="tool-result">
        <JsonView value={value} open={1} />
      </div>
    )
    : <pre class="tool-result">{props.text}</pre>;
}
