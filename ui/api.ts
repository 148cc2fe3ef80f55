/**
 * Talking to the workbench API from the pages: JSON in the ok wrapper, errors as {@link ApiError}
 * carrying the API's kind, message and details, and server-sent events read from a `fetch` body (a
 * chat turn is a POST, which `EventSource` cannot send).
 *
 * @module
 */

/** Sends a request to the API (the browser's `fetch`, or the server's with the secret). */
export type Fetcher = (path: string, init?: RequestInit) => Promise<Response>;

/** An error answer of the API. */
export class ApiError extends Error {
  /** HTTP status (0: the request did not get an answer). */
  readonly status: number;
  /** The API's error kind (`bad_input`, `forbidden`, `not_found`, ...). */
  readonly kind: string;
  /** Extra fields the API sent (`path`, `issues`, ...). */
  readonly details: Record<string, unknown>;

  /**
   * @param status HTTP status.
   * @param kind Error kind.
   * @param message What went wrong, in the API's words.
   * @param details Extra fields.
   */
  constructor(
    status: number,
    kind: string,
    message: string,
    details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.kind = kind;
    this.details = details;
  }
}

/**
 * Calls the API and unwraps `{ok, data}`.
 *
 * @example
 * ```ts
 * const { harnesses } = await callApi<{ harnesses: unknown[] }>(fetch, "/api/harnesses");
 * ```
 * @param fetcher How to send.
 * @param path The API path (with its query).
 * @param init Method, body.
 * @returns The `data`.
 * @throws {ApiError} For an error answer or no answer.
 */
export async function callApi<T>(fetcher: Fetcher, path: string, init?: RequestInit): Promise<T> {
  let res: Response;
  try {
    res = await fetcher(path, init);
  } catch (err) {
    throw new ApiError(0, "network", `The workbench did not answer: ${(err as Error).message}`);
  }
  return await unwrap<T>(res);
}

/**
 * Opens a streamed answer (server-sent events); an error answer throws like {@link callApi}.
 *
 * @param fetcher How to send.
 * @param path The API path.
 * @param init Method, body.
 * @returns The open response, to read with {@link readSse}.
 * @throws {ApiError} For an error answer or no answer.
 */
export async function openStream(
  fetcher: Fetcher,
  path: string,
  init?: RequestInit,
): Promise<Response> {
  let res: Response;
  try {
    res = await fetcher(path, init);
  } catch (err) {
    throw new ApiError(0, "network", `The workbench did not answer: ${(err as Error).message}`);
  }
  if (!res.ok) await unwrap(res);
  return res;
}

/** Reads `{ok, data}` from an answer, or throws its error. */
async function unwrap<T>(res: Response): Promise<T> {
  const text = await res.text();
  let body: { ok?: boolean; data?: T; error?: { kind?: string; message?: string } } | undefined;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: handled below
  }
  if (res.ok && body?.ok === true) return body.data as T;
  const error = body?.error;
  if (error) {
    // The envelope's `details` (a frozen root, the issues, …) are the error's details.
    const { kind, message, details, ...rest } = error as Record<string, unknown>;
    throw new ApiError(
      res.status,
      String(kind ?? "error"),
      String(message ?? `HTTP ${res.status}`),
      { ...rest, ...(details && typeof details === "object" ? details : {}) },
    );
  }
  throw new ApiError(res.status, "error", `HTTP ${res.status}: ${text.slice(0, 200)}`);
}

/**
 * A JSON request body for {@link callApi}.
 *
 * @param method The method.
 * @param body The value to send.
 * @returns The request init.
 */
export function jsonBody(method: string, body: unknown): RequestInit {
  return { method, headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
}

/** One server-sent event. */
export interface SseEvent {
  event: string;
  data: unknown;
  id?: string;
}

/**
 * Reads server-sent events from a response body as they arrive. A reader that stops early (a
 * `break` or `return` in its loop, an error) cancels the body, which ends the request: a browser
 * opens only six connections to a host, and a stream nobody reads would hold one until the server
 * ends it.
 *
 * @param res A `text/event-stream` response.
 * @returns The events; the iteration ends with the stream.
 */
export async function* readSse(res: Response): AsyncGenerator<SseEvent> {
  if (!res.body) return;
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let ended = false;
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) {
        ended = true;
        break;
      }
      buffer += value.replace(/\r\n?/g, "\n");
      let cut: number;
      while ((cut = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const event = parseBlock(block);
        if (event) yield event;
      }
    }
  } finally {
    // Cancelling the decoder's side cancels the body it is piped from.
    if (!ended) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}

function parseBlock(block: string): SseEvent | undefined {
  let event = "message";
  let id: string | undefined;
  const data: string[] = [];
  for (const line of block.split("\n")) {
    if (!line || line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "event") event = value;
    else if (field === "data") data.push(value);
    else if (field === "id") id = value;
  }
  if (!data.length) return undefined;
  const text = data.join("\n");
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // plain text data
  }
  return { event, data: parsed, ...(id !== undefined ? { id } : {}) };
}
