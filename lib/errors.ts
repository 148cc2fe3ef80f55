/**
 * The one error type of the framework and the single mapping from its kind to an HTTP status and a
 * CLI exit code: every failure answered in the ok wrapper, over HTTP or by the CLI, gets both from
 * here (405 and 413 from the two helpers below). What is not a failure is decided where it is
 * answered: a route's success status (200, or 201 and 202 in the workbench API), the CLI's exit 3
 * for a run or an eval case that did not succeed ({@link EXIT_RUN_NOT_SUCCESS}), its exit 2 for
 * `validate` of an invalid spec, `trace --verify` of a broken chain and a bare `framework` (cli.ts,
 * cli/main.ts), and the statuses of the workbench's own HTML pages (routes/workbench_pages.tsx,
 * routes/workbench_launcher.ts). The table: docs/http-contract.md.
 *
 * @module
 */

/** Every kind of failure the framework reports. */
export type ErrorKind =
  | "bad_input"
  | "unauthorized"
  | "forbidden"
  | "not_found"
  | "conflict"
  | "over_capacity"
  | "untrusted"
  | "internal";

/** HTTP status per error kind. */
export const HTTP_STATUS: Readonly<Record<ErrorKind, number>> = {
  bad_input: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  over_capacity: 503,
  untrusted: 403,
  internal: 500,
};

/** CLI exit code per error kind: 1 internal, 2 bad input, 4 untrusted, 5 auth (docs/cli.md). */
export const EXIT_CODE: Readonly<Record<ErrorKind, number>> = {
  bad_input: 2,
  unauthorized: 5,
  forbidden: 5,
  not_found: 2,
  conflict: 2,
  over_capacity: 1,
  untrusted: 4,
  internal: 1,
};

/** Exit code of a run that finished with a status other than `success`. */
export const EXIT_RUN_NOT_SUCCESS = 3;

/**
 * An expected failure with a kind that decides its HTTP status and exit code.
 *
 * @example Refuse a value
 * ```ts
 * throw new FrameworkError("bad_input", 'Cannot set "limits.max_turns": expected a number, got "12"');
 * ```
 */
export class FrameworkError extends Error {
  /** What kind of failure this is. */
  readonly kind: ErrorKind;
  /** Structured details for machine readers (paths, issues, allowed values). */
  readonly details: Record<string, unknown>;

  /**
   * @param kind The failure kind.
   * @param message What went wrong and what to do, in sentence case.
   * @param details Structured details.
   */
  constructor(kind: ErrorKind, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = "FrameworkError";
    this.kind = kind;
    this.details = details;
  }

  /** A more precise HTTP status than the kind's (405, 413), set only by the helpers below. */
  httpStatus?: number;
  /** Extra HTTP headers of the error response (`Retry-After`, `Allow`). */
  httpHeaders?: Record<string, string>;
}

/**
 * The HTTP status of any thrown value: the kind's status, or the precise status a helper set.
 *
 * @param err The thrown value.
 * @returns The status.
 */
export function httpStatusOf(err: unknown): number {
  const e = asFrameworkError(err);
  return e.httpStatus ?? HTTP_STATUS[e.kind];
}

/**
 * A request with a method the path does not accept (405, kind `bad_input`).
 *
 * @param method The method used.
 * @param allowed The methods the path accepts.
 * @returns The error.
 */
export function methodNotAllowed(method: string, allowed: string[]): FrameworkError {
  const e = new FrameworkError(
    "bad_input",
    `Method ${method} is not allowed here: use ${allowed.join(" or ")}`,
    { allowed },
  );
  e.httpStatus = 405;
  e.httpHeaders = { allow: allowed.join(", ") };
  return e;
}

/**
 * A request body over the size limit (413, kind `bad_input`).
 *
 * @param limit The limit in bytes.
 * @returns The error.
 */
export function payloadTooLarge(limit: number): FrameworkError {
  const e = new FrameworkError("bad_input", `The request body is larger than ${limit} bytes`, {
    limit,
  });
  e.httpStatus = 413;
  return e;
}

/**
 * No capacity for another run (503, kind `over_capacity`) with a `Retry-After` estimate.
 *
 * @param retryAfterS Whole seconds, at least 1.
 * @param message What is full.
 * @returns The error.
 */
export function overCapacity(retryAfterS: number, message: string): FrameworkError {
  const seconds = Math.max(1, Math.ceil(retryAfterS));
  const e = new FrameworkError("over_capacity", `${message}; retry in ${seconds} s`, {
    retry_after_s: seconds,
  });
  e.httpHeaders = { "retry-after": String(seconds) };
  return e;
}

/**
 * Turns anything thrown into a FrameworkError. Unknown errors become `internal` with a generic message
 * (their text may hold paths or stack frames); the original is kept as `cause` for logging.
 *
 * @param err The thrown value.
 * @returns A FrameworkError.
 */
export function asFrameworkError(err: unknown): FrameworkError {
  if (err instanceof FrameworkError) return err;
  const wrapped = new FrameworkError(
    "internal",
    "Internal error: the operation failed unexpectedly; the details were logged on stderr.",
  );
  (wrapped as { cause?: unknown }).cause = err;
  return wrapped;
}

/**
 * Shorthand for a `bad_input` error.
 *
 * @param message What is wrong and what to do.
 * @param details Structured details.
 * @returns The error, ready to throw.
 */
export function badInput(message: string, details: Record<string, unknown> = {}): FrameworkError {
  return new FrameworkError("bad_input", message, details);
}

/**
 * Shorthand for a `not_found` error.
 *
 * @param message What was not found.
 * @param details Structured details.
 * @returns The error, ready to throw.
 */
export function notFound(message: string, details: Record<string, unknown> = {}): FrameworkError {
  return new FrameworkError("not_found", message, details);
}

/**
 * Quotes a value for an error message: strings in double quotes, everything else as JSON, cut short.
 *
 * @param value The value to show.
 * @returns A short printable form.
 */
export function quote(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

/**
 * The hive's database out of reach (503, kind `internal`, `details.reason: "hive_unavailable"`, with
 * `Retry-After`): a request that needs the hive fails whole, and is worth retrying once the database
 * is back (the connection is opened again by the next statement).
 *
 * @param where The database, its password left out.
 * @param why The client's error.
 * @returns The error.
 */
export function hiveUnavailable(where: string, why: string): FrameworkError {
  const e = new FrameworkError(
    "internal",
    `The hive's database ${where} is unavailable (${why}); retry when it is back`,
    { reason: "hive_unavailable", hive: where },
  );
  e.httpStatus = 503;
  e.httpHeaders = { "retry-after": "5" };
  return e;
}

/**
 * Whether an error is {@link hiveUnavailable}'s.
 *
 * @param err Any thrown value.
 * @returns True when the hive's database was out of reach.
 */
export function isHiveUnavailable(err: unknown): boolean {
  return err instanceof FrameworkError && err.details.reason === "hive_unavailable";
}
