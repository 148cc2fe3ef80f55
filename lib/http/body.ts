/**
 * Reading JSON request bodies with a size limit: a body over the limit is 413, a body that is not a
 * JSON object is 400, and nothing is read past the limit.
 *
 * @module
 */

import { badInput, payloadTooLarge } from "../errors.ts";
import { jsonProblem } from "../json_safety.ts";

/** Default request body limit: 1 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/**
 * Reads a body's bytes, refusing more than `maxBytes` (checked on `Content-Length` and while reading).
 *
 * @param request The request.
 * @param maxBytes The limit.
 * @returns The bytes.
 */
export async function readBodyBytes(request: Request, maxBytes: number): Promise<Uint8Array> {
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > maxBytes) {
    await request.body?.cancel().catch(() => {});
    throw payloadTooLarge(maxBytes);
  }
  if (!request.body) return new Uint8Array();
  // A declared length within the limit is held to by the HTTP layer (bytes past it are not this
  // body): the body is read whole, without a reader's turn per chunk. A request made in process
  // can still carry any length, hence the check after.
  if (Number.isFinite(declared)) {
    const bytes = new Uint8Array(await request.arrayBuffer());
    if (bytes.length > maxBytes) throw payloadTooLarge(maxBytes);
    return bytes;
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.length;
      if (size > maxBytes) {
        await reader.cancel().catch(() => {});
        throw payloadTooLarge(maxBytes);
      }
      chunks.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/**
 * Reads a JSON object body.
 *
 * @example
 * ```ts
 * Deno.serve(async (request) => {
 *   const body = await readJsonObject(request, 1024 * 1024, { allowEmpty: false });
 *   return Response.json({ ok: true, data: { fields: Object.keys(body) } });
 * });
 * ```
 * @param request The request.
 * @param maxBytes The size limit.
 * @param options `allowEmpty`: an empty body reads as `{}`.
 * @returns The object.
 */
export async function readJsonObject(
  request: Request,
  maxBytes: number,
  options: { allowEmpty?: boolean } = {},
): Promise<Record<string, unknown>> {
  const bytes = await readBodyBytes(request, maxBytes);
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw badInput("The request body is not UTF-8 text");
  }
  if (!text.trim()) {
    if (options.allowEmpty) return {};
    throw badInput("The request body is empty: send a JSON object");
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw badInput(`The request body is not JSON: ${(err as Error).message}`);
  }
  const problem = jsonProblem(value);
  if (problem) throw badInput(`The request body is refused: ${problem}`);
  if (!value || typeof value !== "object" || Array.isArray(value)) {
    throw badInput(
      `The request body must be a JSON object, got ${
        Array.isArray(value) ? "a list" : value === null ? "null" : typeof value
      }`,
    );
  }
  return value as Record<string, unknown>;
}
