/**
 * Tool approvals as the page keeps them: the requests waiting for a person across the workbench's
 * harnesses (one list, `GET /api/approvals?status=pending`, shared by the rail's badge, the Trace
 * card of a run stopped while it waited, and the chat), and the requests of one run still open by
 * its journal events.
 *
 * The list is polled while the page is visible (every {@link APPROVALS_POLL_MS}) and read again at
 * once when the page sees a request come or go — an `approval_*` event of a run it follows, or a
 * decision it made. Polling, not only the run streams, because a request may come from any run of
 * the harnesses shown — one started by the CLI, a control plane sharing the hive or another tab —
 * which no stream of this page follows; and a list of a few rows every few seconds costs nothing.
 *
 * @module
 */

import { useEffect } from "preact/hooks";
import { paths } from "./paths.ts";
import { type Store, useApi, useStore } from "./store.ts";
import type { ApprovalRecord, JournalEvent, WorkbenchApprovals } from "./types.ts";

/** How often the pending requests are read again while the page is visible. */
export const APPROVALS_POLL_MS = 5000;

/** The journal events of tool approvals: the filters' "Approvals" group. */
export const APPROVAL_TYPES = ["approval_requested", "approval_decided", "run_resumed"];

/** A request as its card shows it: from the hive's record or from its `approval_requested` event. */
export interface ApprovalShown {
  approval_id: string;
  tool: string;
  arguments: Record<string, unknown>;
  arguments_hash: string;
  expires_at: string;
  /** The run that waits, when known (the card then links it). */
  run_id?: string;
  harness_id?: string;
}

/**
 * The requests waiting for a person across the workbench's harnesses.
 *
 * @returns The list (empty until it is read).
 */
export function usePendingApprovals(): ApprovalRecord[] {
  return useApi<WorkbenchApprovals>(paths.pendingApprovals()).data?.approvals ?? [];
}

/**
 * Reads the pending requests again every few seconds while the page is visible, and when the window
 * comes back. Mounted once per page (by the rail).
 */
export function usePollApprovals(): void {
  const store = useStore();
  useEffect(() => {
    const read = () => {
      if (document.visibilityState === "visible") {
        void store.cache.load(paths.pendingApprovals(), true);
      }
    };
    const t = setInterval(read, APPROVALS_POLL_MS);
    addEventListener("focus", read);
    document.addEventListener("visibilitychange", read);
    return () => {
      clearInterval(t);
      removeEventListener("focus", read);
      document.removeEventListener("visibilitychange", read);
    };
  }, []);
}

/**
 * Reads every approval path again (a request came or went, or the page decided one).
 *
 * @param store The page's store.
 */
export function approvalsChanged(store: Store): void {
  store.cache.refresh(paths.allApprovals());
}

/**
 * Whether a journal event is a request coming or going.
 *
 * @param e The event.
 * @returns Whether it is `approval_requested` or `approval_decided`.
 */
export function isApprovalEvent(e: JournalEvent): boolean {
  return e.type === "approval_requested" || e.type === "approval_decided";
}

/**
 * The requests of a run that its journal holds open: asked (`approval_requested`) and not yet
 * decided (`approval_decided`), oldest first.
 *
 * @param events The run's events.
 * @returns The requests, as their cards show them.
 */
export function openRequests(events: readonly JournalEvent[]): ApprovalShown[] {
  const decided = new Set(
    events.filter((e) => e.type === "approval_decided").map((e) => String(e.payload.approval_id)),
  );
  return events
    .filter((e) => e.type === "approval_requested" && !decided.has(String(e.payload.approval_id)))
    .map((e) => e.payload as unknown as ApprovalShown);
}

/** Requests seen coming or going within this time are read again once. */
const SETTLE_MS = 50;

/**
 * Follows runs that may be going (over the page's one stream of live runs) to read the pending
 * requests again as soon as one of them asks for a decision, has one, or ends.
 *
 * @param runIds The runs.
 */
export function useFollowApprovals(runIds: readonly string[]): void {
  const store = useStore();
  const key = [...runIds].sort().join(",");
  useEffect(() => {
    if (!key) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const changed = () => {
      clearTimeout(timer);
      timer = setTimeout(() => approvalsChanged(store), SETTLE_MS);
    };
    const undo = key.split(",").map((id) =>
      store.live.follow(id, 0, (f) => {
        if (f.kind !== "trace" || isApprovalEvent(f.event)) changed();
      })
    );
    return () => {
      clearTimeout(timer);
      for (const u of undo) u();
    };
  }, [key]);
}
