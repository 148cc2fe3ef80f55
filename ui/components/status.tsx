/**
 * Status badges for runs, proposals and changes: colour and text together, never colour alone.
 *
 * @module
 */

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
