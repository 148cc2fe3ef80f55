/**
 * How a run's status reads in OpenAI's shapes, written once for both endpoints: a chat completion's
 * `finish_reason` and a response's `status` (docs/control-plane.md, OpenAI-compatible endpoints). A
 * run that answered is `stop` / `completed` (its validators' verdict, `verify_failed`, is in the
 * `framework` extension); one that ran out of turns is `length` / `incomplete`; a guardrail's halt
 * is `content_filter` / `incomplete`; a run that failed is `stop` with whatever it produced, and a
 * response `failed` with its reason.
 *
 * @module
 */

import type { RunResult, RunStatus } from "../run_types.ts";

/** A chat completion's finish reason. */
export type FinishReason = "stop" | "length" | "content_filter";

/** A chat completion's finish reason per run status. */
export const FINISH_REASONS: Readonly<Record<RunStatus, FinishReason>> = {
  success: "stop",
  verify_failed: "stop",
  max_turns: "length",
  guardrail_halt: "content_filter",
  error: "stop",
};

/** What a finished response says of how it ended. */
export interface ResponseEnd {
  status: "completed" | "incomplete" | "failed";
  incomplete_details: { reason: "max_output_tokens" | "content_filter" } | null;
  error: { code: string; message: string } | null;
}

/**
 * How a finished run's response ended: `completed`; `incomplete` with OpenAI's reason for a run out
 * of turns (`max_output_tokens`) or halted by a guardrail (`content_filter`); or `failed` with the
 * run's reason and message.
 *
 * @example
 * ```ts
 * responseEnd({ status: "max_turns" });
 * // {status: "incomplete", incomplete_details: {reason: "max_output_tokens"}, error: null}
 * ```
 * @param result The run's result (its status, and its error when it failed).
 * @returns The response's status, incomplete details and error.
 */
export function responseEnd(result: Pick<RunResult, "status" | "error">): ResponseEnd {
  switch (result.status) {
    case "max_turns":
      return {
        status: "incomplete",
        incomplete_details: { reason: "max_output_tokens" },
        error: null,
      };
    case "guardrail_halt":
      return {
        status: "incomplete",
        incomplete_details: { reason: "content_filter" },
        error: null,
      };
    case "error":
      return {
        status: "failed",
        incomplete_details: null,
        error: {
          code: "server_error",
          message: result.error
            ? `${result.error.reason}: ${result.error.message}`
            : "The run ended with an error",
        },
      };
    default:
      return { status: "completed", incomplete_details: null, error: null };
  }
}
