/**
 * Status badges for runs, proposals and changes: colour and text together, never colour alone. A
 * run's badge reads its outcome (`runOutcome`): a run someone stopped says `stopped`, not a red
 * `error`, though its status stays `error`.
 *
 * @module
 */

import { runOutcome } from "../../lib/run_types.ts";

const TONE: Record<string, string> = {
  success: "ok",
  applied: "ok",
  verify_failed: "warn",
  guardrail_halt: "warn",
  max_turns: "warn",
  partially_applied: "warn",
  skipped: "muted",
  pending: "info",
  queued: "info",
  running: "info",
  stopped: "muted",
  error: "bad",
  rejected: "muted",
  blocked: "bad",
};

/**
 * A badge.
 *
 * @param props The status text.
 * @returns The badge.
 */
export function StatusBadge(props: { status: string }) {
  return (
    <span class={`badge badge-${TONE[props.status] ?? "muted"}`} data-status={props.status}>
      {props.status.replace(/_/g, " ")}
    </span>
  );
}

/**
 * A run's badge: its outcome from its status and reason (`stopped` for a stopped run). It keeps
 * the status in `data-status` and says the outcome in `data-outcome`; the title gives the reason.
 *
 * @param props The run's status and its reason (null or absent for a success).
 * @returns The badge.
 */
export function RunStatusBadge(props: { status: string; reason?: string | null | undefined }) {
  const outcome = runOutcome(props.status, props.reason);
  return (
    <span
      class={`badge badge-${TONE[outcome] ?? "muted"}`}
      data-status={props.status}
      data-outcome={outcome}
      title={outcome === "stopped"
        ? "Stopped before it finished: its status is error, reason stopped"
        : props.reason
        ? `${props.status}: ${props.reason}`
        : undefined}
    >
      {outcome.replace(/_/g, " ")}
    </span>
  );
}
