/**
 * The card of a tool call waiting for a person: the tool, its arguments, for a `file_write` the diff
 * of the file's content now against the content proposed, when the request expires, a reason, and
 * Approve / Deny. A decision quotes the arguments' hash the card shows, so what is approved is
 * exactly what was read (a request changed meanwhile is refused, and nothing is decided). Trace shows
 * it above a waiting run's events, and the chat below the turn that started the run.
 *
 * @module
 */

import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError, callApi, jsonBody } from "../api.ts";
import { approvalsChanged, type ApprovalShown } from "../approvals.ts";
import { formatUntil, formatUtc, shortId } from "../format.ts";
import { useNow } from "../live_runs.ts";
import { paths } from "../paths.ts";
import { withRoute } from "../route.ts";
import { useApi, useStore } from "../store.ts";
import type { ApprovalPreview, ApprovalRecord } from "../types.ts";
import { Diff } from "./diff.tsx";
import { ErrorLine, Pending } from "./empty.tsx";
import { Icon } from "./icons.tsx";
import { JsonView } from "./json_view.tsx";
import { Link } from "./link.tsx";

/** The tool whose requests show the change they would make. */
const FILE_WRITE = "file_write";

/**
 * A request's card.
 *
 * @param props The request; `compact` for the chat's narrow column (the arguments folded, the run
 *   linked); `onDecided` is told the decided record (the card's owner hides it).
 * @returns The card.
 */
export function ApprovalCard(props: {
  request: ApprovalShown;
  compact?: boolean;
  onDecided?: (record: ApprovalRecord) => void;
}) {
  const store = useStore();
  const r = props.request;
  const [reason, setReason] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const ref = useRef<HTMLElement>(null);
  // In the chat's column the card is brought into view when it comes, and again once its change is
  // shown, so Approve and Deny are in sight.
  const show = () => {
    if (props.compact) ref.current?.scrollIntoView?.({ block: "nearest" });
  };
  useEffect(show, []);
  const decide = async (decision: "approve" | "deny") => {
    setBusy(true);
    setError(null);
    try {
      const record = await callApi<ApprovalRecord>(
        store.fetcher,
        paths.approval(r.approval_id),
        jsonBody("POST", {
          decision,
          arguments_hash: r.arguments_hash,
          ...(reason.trim() ? { reason: reason.trim() } : {}),
        }),
      );
      store.notify(
        decision === "approve"
          ? `Approved: ${r.tool} runs with the arguments shown.`
          : `Denied${reason.trim() ? `: ${reason.trim()}` : ""}. The run goes on without the call.`,
      );
      props.onDecided?.(record);
    } catch (err) {
      setError(err instanceof ApiError ? err.message : String(err));
    } finally {
      setBusy(false);
      approvalsChanged(store);
    }
  };
  return (
    <section
      ref={ref}
      class={props.compact ? "approval-card compact" : "approval-card"}
      data-testid="approval-card"
      data-approval={r.approval_id}
      data-tool={r.tool}
      aria-label={`Waiting for your decision: ${r.tool}`}
    >
      <ApprovalHead request={r} compact={!!props.compact} />
      {r.tool === FILE_WRITE ? <WritePreview approvalId={r.approval_id} onShown={show} /> : null}
      <details class="approval-args" open={!props.compact || r.tool !== FILE_WRITE}>
        <summary>Arguments</summary>
        <JsonView value={r.arguments} open={2} />
      </details>
      <form
        class="approval-decide"
        onSubmit={(e) => {
          e.preventDefault();
          void decide("approve");
        }}
      >
        <input
          name="approval-reason"
          value={reason}
          maxLength={2000}
          placeholder="Reason (optional; the model reads it when you deny)"
          aria-label="Reason for the decision"
          onInput={(e) => setReason((e.target as HTMLInputElement).value)}
        />
        <button type="submit" class="primary" data-testid="approve" disabled={busy}>
          <Icon name="check" /> Approve
        </button>
        <button
          type="button"
          class="danger"
          data-testid="deny"
          disabled={busy}
          onClick={() => void decide("deny")}
        >
          <Icon name="x" /> Deny
        </button>
      </form>
      <ErrorLine error={error} />
    </section>
  );
}

/** What waits, for how long, and (in the chat) the run that waits. */
function ApprovalHead(props: { request: ApprovalShown; compact: boolean }) {
  const r = props.request;
  const route = useStore().route.value;
  const now = useNow(true);
  return (
    <header class="approval-head">
      <Icon name="alert" size={18} />
      <div class="approval-what">
        <strong>Waiting for your decision</strong>{" "}
        <span>
          — the run asks to call <code class="approval-tool">{r.tool}</code>
        </span>
        {props.compact && r.run_id && r.harness_id
          ? (
            <>
              {" "}
              <Link
                to={withRoute({ ...route, page: "workbench" }, {
                  harness: r.harness_id,
                  tab: "trace",
                  run: r.run_id,
                })}
                class="mono"
              >
                {shortId(r.run_id)}
              </Link>
            </>
          )
          : null}
      </div>
      <span class="approval-expiry muted" title={`Expires ${formatUtc(r.expires_at)}`}>
        expires{" "}
        <time dateTime={r.expires_at}>
          {now === null ? formatUtc(r.expires_at) : formatUntil(r.expires_at, now)}
        </time>
      </span>
      <span class="approval-hash muted" title={`arguments_hash ${r.arguments_hash}`}>
        hash <code>{r.arguments_hash.slice(0, 12)}</code>
      </span>
    </header>
  );
}

/** The change a `file_write` would make: the file now against the content proposed. */
function WritePreview(props: { approvalId: string; onShown: () => void }) {
  const preview = useApi<ApprovalPreview>(paths.approvalPreview(props.approvalId));
  const p = preview.data;
  useEffect(() => {
    if (p) props.onShown();
  }, [!!p]);
  if (!p) return <Pending error={preview.error} what="the change" />;
  if (p.refused) {
    return (
      <p class="approval-refused" role="note" data-testid="approval-refused">
        <Icon name="shield" />{" "}
        {p.refused}. The tool refuses this path whatever you decide: it writes nothing.
      </p>
    );
  }
  return (
    <div class="approval-change" data-testid="approval-diff" data-path={p.path}>
      <p class="approval-file">
        <code>{p.path}</code>{" "}
        {p.exists ? "is replaced: its content now against the proposed one" : "is a new file"}
        {p.truncated ? " (the file is longer than the 1 MiB read)" : ""}
      </p>
      {p.diff === null
        ? (
          <>
            <p class="muted">Too long to compare line by line; the proposed content:</p>
            <pre class="approval-after">{p.after}</pre>
          </>
        )
        : p.diff === ""
        ? <p class="muted">No change: the file already holds this content.</p>
        : <Diff text={p.diff} />}
    </div>
  );
}
