/**
 * Errors under `/v1/` in OpenAI's shape, `{"error": {message, type, param, code}}`, mapped once from
 * the framework's error kinds (docs/control-plane.md, OpenAI-compatible endpoints): an OpenAI client
 * raises the class it would raise against OpenAI (`BadRequestError`, `AuthenticationError`,
 * `PermissionDeniedError`, `NotFoundError`, `RateLimitError`), and a full run queue is a 429 with
 * `Retry-After`, so it backs off as it does with OpenAI, where `/run` answers 503.
 *
 * @module
 */

import type { ErrorKind, FrameworkError } from "../errors.ts";
import type { ErrorShape } from "../http/response.ts";

/** OpenAI's error object. */
export interface OpenAiErrorBody {
  error: {
    message: string;
    type: string;
    /** The request field at fault, when one is. */
    param: string | null;
    code: string | null;
  };
}

/** OpenAI's status, type and default code per error kind. */
export const OPENAI_ERRORS: Readonly<
  Record<ErrorKind, { status: number; type: string; code: string | null }>
> = {
  bad_input: { status: 400, type: "invalid_request_error", code: null },
  unauthorized: { status: 401, type: "authentication_error", code: "invalid_api_key" },
  forbidden: { status: 403, type: "permission_error", code: "insufficient_scope" },
  untrusted: { status: 403, type: "permission_error", code: "untrusted_harness" },
  not_found: { status: 404, type: "not_found_error", code: null },
  conflict: { status: 409, type: "invalid_request_error", code: "conflict" },
  over_capacity: { status: 429, type: "rate_limit_error", code: "rate_limit_exceeded" },
  internal: { status: 500, type: "server_error", code: null },
};

/**
 * An error as OpenAI answers it: the kind's status (a helper's precise 405 or 413 kept), its type,
 * the field at fault as `param` (`details.field`), and a code (`details.code`, else the kind's).
 *
 * @example
 * ```ts
 * import { badInput } from "../errors.ts";
 *
 * openAiError(badInput('"tools": not supported', { field: "tools" }));
 * // {status: 400, body: {error: {message: '"tools": not supported', type: "invalid_request_error",
 * //   param: "tools", code: null}}}
 * ```
 * @param e The error.
 * @returns Its status and body.
 */
export const openAiError: ErrorShape = (e: FrameworkError) => {
  const mapped = OPENAI_ERRORS[e.kind];
  const field = e.details.field ?? e.details.param;
  const code = e.details.code;
  const body: OpenAiErrorBody = {
    error: {
      message: e.message,
      type: mapped.type,
      param: typeof field === "string" ? field : null,
      code: typeof code === "string" ? code : mapped.code,
    },
  };
  // 429 replaces the ok wrapper's 503 (over capacity); 405 and 413 stay as precise as they are.
  const status = e.kind === "over_capacity" ? mapped.status : e.httpStatus ?? mapped.status;
  return { status, body };
};
