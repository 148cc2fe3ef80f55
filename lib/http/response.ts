/**
 * HTTP responses in the ok wrapper, shared by the control plane and the workbench API. The status of
 * an error comes from `httpStatusOf` (lib/errors.ts); internal errors are logged with their cause and
 * answered without it.
 *
 * @module
 */

import { asFrameworkError, httpStatusOf } from "../errors.ts";
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
 * An error response: status from the error, body in the ok wrapper, `Retry-After` or `Allow` when the
 * error carries them. Internal errors are logged on stderr with their cause.
 *
 * @param err The thrown value.
 * @returns The response.
 */
export function errorResponse(err: unknown): Response {
  const e = asFrameworkError(err);
  if (e.kind === "internal") {
    const cause = (e as { cause?: unknown }).cause ?? err;
    console.error("internal error:", cause instanceof Error ? cause.stack ?? cause.message : cause);
  }
  return new Response(JSON.stringify(errorEnvelope(e)), {
    status: httpStatusOf(e),
    headers: { ...JSON_HEADERS, ...e.httpHeaders },
  });
}
