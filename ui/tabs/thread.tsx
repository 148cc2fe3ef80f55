/**
 * A thread's conversation, in Runs (`/h/{id}/runs?thread={thread_id}`): each turn as the person's
 * message and the harness's answer, with the run's outcome, cost, model turns and start, and a link
 * to the run's Trace. A turn still going says so and its answer appears when it ends.
 *
 * @module
 */

import { Empty, Pending } from "../components/empty.tsx";
import { Link } from "../components/link.tsx";
import { Markdown } from "../components/markdown.tsx";
import { RunStatusBadge } from "../components/status.tsx";
import { Time } from "../components/time.tsx";
import { formatCost, shortId } from "../format.ts";
import { useLiveRows } from "../live_runs.ts";
import { paths } from "../paths.ts";
import { withRoute } from "../route.ts";
import { useApi, useStore } from "../store.ts";
import type { HarnessDetail, ThreadTurn, ThreadView } from "../types.ts";

/**
 * The conversation of one thread of the harness.
 *
 * @param props The harness and the thread.
 * @returns The view.
 */
export function ThreadConversation(props: { harness: HarnessDetail; threadId: string }) {
  const route = useStore().route.value;
  const entry = useApi<ThreadView>(paths.thread(props.threadId));
  const thread = entry.data;
  const turns = thread?.runs ?? [];
  // A turn going on: the thread is read again when it ends (its answer and figures).
  useLiveRows(props.harness.id, turns);
  const back = (
    <Link to={withRoute(route, { query: { thread: "" } })} class="back-link">
      ← All runs
    </Link>
  );
  if (!thread) {
    return (
      <div class="thread-view">
        {back}
        {entry.error?.kind === "not_found"
          ? (
            <Empty title="No such thread">
              <p>
                {props.threadId}{" "}
                is not a thread of this workbench's harnesses (or it was deleted; its runs stay in
                Runs).
              </p>
            </Empty>
          )
          : <Pending error={entry.error} what="the conversation" />}
      </div>
    );
  }
  if (thread.harness_id !== props.harness.id) {
    const there = withRoute(route, {
      harness: thread.harness_id,
      tab: "runs",
      query: { thread: thread.thread_id },
    });
    return (
      <div class="thread-view">
        {back}
        <Empty title={`This thread is a conversation with ${thread.harness_id}`}>
          <p>
            <Link to={there}>
              Open it under {thread.harness_id}
            </Link>
          </p>
        </Empty>
      </div>
    );
  }
  return (
    <div class="thread-view" data-testid="thread-view" data-thread-id={thread.thread_id}>
      {back}
      <ThreadHead thread={thread} />
      {turns.length
        ? (
          <ol class="conversation">
            {turns.map((t, i) => <Turn key={t.run_id} turn={t} n={i + 1} />)}
          </ol>
        )
        : <NoTurns thread={thread} dir={props.harness.dir} />}
    </div>
  );
}

/** The thread's id, owner, turns and times, and whether a run of it is going. */
function ThreadHead(props: { thread: ThreadView }) {
  const t = props.thread;
  const metadata = Object.keys(t.metadata).length ? JSON.stringify(t.metadata) : null;
  return (
    <div class="thread-head">
      <h2 class="thread-title">
        Conversation <code class="mono" title={t.thread_id}>{t.thread_id}</code>
      </h2>
      <div class="trace-stats">
        <span class="kv" data-stat="turns">
          <span>turns</span> {t.turns}
        </span>
        <span class="kv">
          <span>owner</span> {t.owner}
        </span>
        <span class="kv">
          <span>started</span> <Time iso={t.created_at} />
        </span>
        <span class="kv">
          <span>updated</span> <Time iso={t.updated_at} />
        </span>
        {t.live_run_id
          ? (
            <span class="kv live-run" title={`Run ${t.live_run_id} is going`}>
              <span class="pulse" aria-hidden="true" /> a turn is going
            </span>
          )
          : null}
        {metadata
          ? (
            <span class="kv thread-metadata" title={metadata}>
              <span>metadata</span> <code>{metadata}</code>
            </span>
          )
          : null}
      </div>
    </div>
  );
}

/** One turn: what was asked, then the answer with its run's figures and a way to its Trace. */
function Turn(props: { turn: ThreadTurn; n: number }) {
  const route = useStore().route.value;
  const t = props.turn;
  const going = t.status === "running" || t.status === "queued";
  return (
    <li class="turn" data-run-id={t.run_id} data-testid="thread-turn">
      <div class="bubble bubble-user">
        <p class="who">Turn {props.n}</p>
        <p class="said">{t.input}</p>
      </div>
      <div class="bubble bubble-answer">
        <p class="turn-meta">
          <RunStatusBadge status={t.status} />
          <span class="muted small">
            {formatCost(t.cost_usd)} · {t.turns} {t.turns === 1 ? "model turn" : "model turns"}
            {" · "}
            <Time iso={t.started_at} />
          </span>
          <Link
            to={withRoute(route, { tab: "trace", run: t.run_id })}
            data-testid="turn-trace-link"
            title={t.run_id}
          >
            Open <span class="mono">{shortId(t.run_id)}</span> in Trace →
          </Link>
        </p>
        {t.output ? <Markdown text={t.output} /> : (
          <p class="muted">
            {going ? "Answering…" : "No answer: the run ended without output (see its Trace)."}
          </p>
        )}
      </div>
    </li>
  );
}

/** A thread with no turn yet: how to send it one. */
function NoTurns(props: { thread: ThreadView; dir: string }) {
  const id = props.thread.thread_id;
  return (
    <Empty title="No turns yet">
      <p>
        Send this thread a message: <code>framework run {props.dir} --thread {id} --input "…"</code>
        {" "}
        in a terminal, <code>POST /api/threads/{id}/run</code>{" "}
        here, or a chat page (the Use tab, with the input set to chat).
      </p>
    </Empty>
  );
}
