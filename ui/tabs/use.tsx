/**
 * Use: the harness's generated page, previewed as a person would use it. The page runs in
 * `<iframe sandbox="allow-scripts">` — an opaque origin, served with a CSP that lets it connect
 * nowhere — and talks only to this tab's bridge by `postMessage`. The bridge runs only this
 * harness, sends text and URLs as literal input, uploads a file into `workspace/uploads/` and runs
 * with that path as `input_file`. A chat page's messages (`thread: true`) are turns of one thread the
 * bridge makes for the frame and keeps while it lives; the page never names a thread. The page never
 * receives a token, a cookie or a framework object; its runs appear in Runs and Trace like any other.
 *
 * @module
 */

import { useEffect, useRef, useState } from "preact/hooks";
import { useAction } from "../action.ts";
import { ApiError, callApi, jsonBody } from "../api.ts";
import { bridgeRequest, type BridgeRun } from "../bridge.ts";
import { Empty } from "../components/empty.tsx";
import { Icon } from "../components/icons.tsx";
import { Link } from "../components/link.tsx";
import { RunStatusBadge } from "../components/status.tsx";
import { formatCost, shortId } from "../format.ts";
import { withRoute } from "../route.ts";
import { paths } from "../paths.ts";
import { type Store, useStore } from "../store.ts";
import { INTERFACE_INPUTS } from "../../lib/interface_inputs.ts";
import type { HarnessDetail, RunResult, ThreadRecord } from "../types.ts";

/**
 * The Use tab.
 *
 * @param props The harness.
 * @returns The tab.
 */
export function Use(props: { harness: HarnessDetail }) {
  const store = useStore();
  const id = props.harness.id;
  const frame = useRef<HTMLIFrameElement>(null);
  const [state, setState] = useState<"loading" | "missing" | "ready">("loading");
  const [reload, setReload] = useState(0);
  // Each document the frame loads (the page reloading itself included) is a session of its own.
  const [loads, setLoads] = useState(0);
  const [kind, setKind] = useState<string>(
    ((props.harness.spec?.interface as { input?: string } | undefined)?.input) ?? "text",
  );
  // The newest run the page made: linked to its trace (the page itself has no way to the workbench).
  const [lastRun, setLastRun] = useState<RunResult | null>(null);

  useEffect(() => {
    let live = true;
    callApi<{ generated: boolean }>(store.fetcher, `${paths.interface(id)}/status`)
      .then((s) => live && setState(s.generated ? "ready" : "missing"))
      .catch(() => live && setState("missing"));
    return () => {
      live = false;
    };
  }, [id, reload]);

  usePageBridge(frame, id, `${reload}.${loads}`, setLastRun);

  const [generate, generating] = useAction(async () => {
    await callApi(
      store.fetcher,
      paths.interface(id),
      jsonBody("POST", { input: kind, force: true }),
    );
    setReload((n) => n + 1);
    store.notify("The page was written to interfaces/default/index.html.");
  });

  const controls = (
    <div class="use-bar">
      <label class="chip">
        <span class="chip-label">Input</span>
        <select
          aria-label="What the page asks for"
          value={kind}
          onChange={(e) => setKind((e.target as HTMLSelectElement).value)}
        >
          {INTERFACE_INPUTS.map((k) => <option key={k} value={k}>{k}</option>)}
        </select>
      </label>
      <button
        type="button"
        onClick={() => void generate()}
        disabled={generating}
        data-testid="generate"
      >
        <Icon name="refresh" /> {state === "ready" ? "Generate again" : "Generate the page"}
      </button>
      {state === "ready" && kind === "chat"
        ? (
          <button
            type="button"
            onClick={() => setReload((n) => n + 1)}
            title="Open the page again: its next message starts a new thread"
            data-testid="new-conversation"
          >
            New conversation
          </button>
        )
        : null}
      <span class="muted small">
        The page runs sandboxed: it can only ask this tab to run {id}. Serve it with{" "}
        <code>framework control-plane</code>, ship it with <code>framework package</code>.
      </span>
    </div>
  );
  if (state === "loading") return <div class="use">{controls}</div>;
  if (state === "missing") {
    return (
      <div class="use">
        {controls}
        <Empty title="No page yet">
          <p>
            Generate a page a person can use to run this harness: one self-contained file,{" "}
            <code>interfaces/default/index.html</code>.
          </p>
        </Empty>
      </div>
    );
  }
  return (
    <div class="use">
      {controls}
      {lastRun ? <LastRun run={lastRun} /> : null}
      <iframe
        key={reload}
        ref={frame}
        class="use-frame"
        title={`The page of ${id}`}
        src={`${paths.interface(id)}?v=${reload}`}
        onLoad={() => setLoads((n) => n + 1)}
        sandbox="allow-scripts"
        referrerpolicy="no-referrer"
        data-testid="use-frame"
      />
    </div>
  );
}

/**
 * The bridge of the preview: one listener, answering only this tab's frame. A request runs this
 * harness (a file is uploaded first and run as its `input_file`); a chat's request (`thread: true`)
 * is a turn of the frame's one thread, which the bridge makes on the first such request and keeps
 * for this frame session (`session` changes with every document the frame loads: a new frame, or
 * the page reloaded, starts a new thread). The frame gets the result or the error, and `onRun` the
 * result.
 */
function usePageBridge(
  frame: { current: HTMLIFrameElement | null },
  id: string,
  session: string,
  onRun: (result: RunResult) => void,
) {
  const store = useStore();
  useEffect(() => {
    let thread: Promise<string> | null = null;
    const frameThread = (): Promise<string> => {
      if (thread) return thread;
      const made = callApi<ThreadRecord>(
        store.fetcher,
        paths.threads(id),
        jsonBody("POST", { metadata: { source: "use" } }),
      ).then((t) => t.thread_id);
      // A thread that could not be made is asked for again by the next message.
      made.catch(() => {
        if (thread === made) thread = null;
      });
      return thread = made;
    };
    const onMessage = async (e: MessageEvent) => {
      const win = frame.current?.contentWindow;
      if (!win || e.source !== win) return;
      const reply = (message: unknown) => win.postMessage(message, "*");
      const request = bridgeRequest(e.data, id);
      if ("error" in request) return reply({ type: "framework:error", error: request.error });
      try {
        const body = await runBody(store, id, request);
        const target = request.thread ? paths.threadRun(await frameThread()) : paths.runsOf(id);
        const result = await callApi<RunResult>(store.fetcher, target, jsonBody("POST", body));
        store.cache.refresh(paths.runsOf(id), paths.allThreads());
        onRun(result);
        reply({ type: "framework:result", result });
      } catch (err) {
        reply({
          type: "framework:error",
          error: err instanceof ApiError ? err.message : String(err),
        });
      }
    };
    addEventListener("message", onMessage);
    return () => removeEventListener("message", onMessage);
  }, [id, session]);
}

/** The body of a run the page asked for: its literal input, or the path its file was stored at. */
async function runBody(store: Store, id: string, request: BridgeRun) {
  if (!("file" in request)) return { input: request.input };
  const stored = await callApi<{ path: string }>(
    store.fetcher,
    `${paths.uploads(id)}?name=${encodeURIComponent(request.file.name)}`,
    {
      method: "POST",
      headers: { "content-type": "application/octet-stream" },
      body: request.file.bytes as BodyInit,
    },
  );
  return { input_file: stored.path };
}

/** The newest run the preview made, with its outcome and a link to its trace. */
function LastRun(props: { run: RunResult }) {
  const route = useStore().route.value;
  const r = props.run;
  return (
    <p class="use-last-run" data-testid="use-last-run" data-run-id={r.run_id}>
      <span class="muted">Last run from the page</span>
      <RunStatusBadge status={r.status} reason={r.error?.reason} />
      <span class="muted small">
        {formatCost(r.cost_usd)} · {r.turns} {r.turns === 1 ? "turn" : "turns"}
      </span>
      <Link to={withRoute(route, { tab: "trace", run: r.run_id })} data-testid="use-trace-link">
        Open <span class="mono">{shortId(r.run_id)}</span> in Trace →
      </Link>
      {r.thread_id
        ? (
          <Link
            to={withRoute(route, { tab: "runs", query: { thread: r.thread_id } })}
            data-testid="use-thread-link"
          >
            View the conversation →
          </Link>
        )
        : null}
    </p>
  );
}
