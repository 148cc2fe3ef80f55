/**
 * HTTP responses in the ok wrapper, shared by the control plane and the workbench API. The status of
 * an error comes from `httpStatusOf` (lib/errors.ts); internal errors are logged with their cause and
 * answered without it.
 *
 * @module
 */

import { asFrameworkError, type FrameworkError, httpStatusOf } from "../errors.ts";
import { errorEnvelope, okEnvelope } from "../envelope.ts";

const JSON_HEADERS = {
  "content-type": "application/json; charset=utf-8",
  "cache-control": "no-store",
};

/**
 * A success response.
 *
 * @example
 * ```ts
 * okResponse({ id: "hello" }); // 200 {"ok":true,"data":{"id":"hello"}}
 * ```
 * @param data The payload.
 * @param status The status (default 200).
 * @returns The response.
 */
export function okResponse(data: unknown, status = 200): Response {
  if (data && typeof data === "object" && Object.isFrozen(data)) {
    // A frozen snapshot (e.g. statistics answered again while nothing changed) is serialized once.
    let json = serialized.get(data);
    if (json === undefined) serialized.set(data, json = JSON.stringify(okEnvelope(data)));
    return jsonResponse(json, status);
  }
  return jsonResponse(JSON.stringify(okEnvelope(data)), status);
}

const serialized = new WeakMap<object, string>();

/**
 * A response whose JSON is already serialized (a snapshot answered many times over).
 *
 * @param json The JSON text.
 * @param status The status (default 200).
 * @returns The response.
 */
export function jsonResponse(json: string, status = 200): Response {
  return new Response(json, { status, headers: JSON_HEADERS });
}

/**
 * Anything thrown as the error a client is told of; an internal one is logged on stderr with its
 * cause first (a client is never told the cause: it may hold a path or a stack).
 *
 * @param err The thrown value.
 * @returns The error to answer with.
 */
export function reportedError(err: unknown): FrameworkError {
  const e = asFrameworkError(err);
  if (e.kind === "internal") {
    const cause = (e as { cause?: unknown }).cause ?? err;
    console.error("internal error:", cause instanceof Error ? cause.stack ?? cause.message : cause);
  }
  return e;
}

/** How an error is answered: its status and body (the ok wrapper, or a protocol's own shape). */
export type ErrorShape = (e: FrameworkError) => { status: number; body: unknown };

/** The ok wrapper's error: the kind's status (or the precise one a helper set) and the envelope. */
export const OK_WRAPPER_ERROR: ErrorShape = (e) => ({
  status: httpStatusOf(e),
  body: errorEnvelope(e),
});

/**
 * An error response: status and body from the shape (the ok wrapper by default), `Retry-After` or
 * `Allow` when the error carries them. Internal errors are logged on stderr with their cause.
 *
 * @example
 * ```ts
 * import { notFound } from "../errors.ts";
 *
 * errorResponse(notFound("Unknown run")); // 404 {"ok":false,"error":{"kind":"not_found",…}}
 * ```
 * @param err The thrown value.
 * @param shape How the error is answered (default: the ok wrapper).
 * @returns The response.
 */
export function errorResponse(err: unknown, shape: ErrorShape = OK_WRAPPER_ERROR): Response {
  const e = reportedError(err);
  const { status, body } = shape(e);
  return new Response(JSON.stringify(body), {
    status,
    headers: { ...JSON_HEADERS, ...e.httpHeaders },
  });
}
