/**
 * The `ok` wrapper shared by the CLI's `--json` output and every HTTP response body
 * (docs/http-contract.md, The ok wrapper).
 *
 * @module
 */

import { asFrameworkError, type ErrorKind } from "./errors.ts";

/** A successful envelope. */
export interface OkEnvelope<T> {
  ok: true;
  data: T;
}

/** A failed envelope. */
export interface ErrorEnvelope {
  ok: false;
  error: { kind: ErrorKind; message: string; details: Record<string, unknown> };
}

/**
 * Wraps a payload as a success.
 *
 * @example
 * ```ts
 * okEnvelope({ valid: true }); // { ok: true, data: { valid: true } }
 * ```
 * @param data The payload.
 * @returns The envelope.
 */
export function okEnvelope<T>(data: T): OkEnvelope<T> {
  return { ok: true, data };
}

/**
 * Wraps anything thrown as a failure. Internal errors never carry their original text (it may hold a
 * stack trace or a file path); the caller logs the cause.
 *
 * @example
 * ```ts
 * import { FrameworkError } from "./errors.ts";
 *
 * errorEnvelope(new FrameworkError("not_found", "Unknown run")).error.kind; // "not_found"
 * ```
 * @param err The thrown value.
 * @returns The envelope.
 */
export function errorEnvelope(err: unknown): ErrorEnvelope {
  const e = asFrameworkError(err);
  return { ok: false, error: { kind: e.kind, message: e.message, details: e.details } };
}
