/**
 * The `Host` header, checked before routing. `Deno.serve` builds `request.url` from the `Host` header
 * and the request target, so a malformed `Host` makes `new URL(request.url)` throw (a 500), and a
 * `Host` holding a path (`x/stats?`) changes which route answers. Every server of the framework checks
 * the header first and answers 400 in the ok wrapper, so routing depends on the request path only.
 *
 * @module
 */

import { badInput, type FrameworkError } from "../errors.ts";
import { pathStart } from "./request_log.ts";
import { errorResponse } from "./response.ts";

/** `host[:port]`: a bracketed IPv6 address, or a name or IPv4 address of unreserved characters. */
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._~-]+)(?::(\d{1,5}))?$/;

/** The last `Host` found well formed, and the start of its request's URL up to the path's slash. */
let wellFormed = { host: "", start: "\0" };

/**
 * What is wrong with a request's `Host` header, or undefined when it is well formed. A missing header
 * is accepted (HTTP/1.0 clients); an empty or malformed one is not.
 *
 * @example
 * ```ts
 * hostProblem(new Request("http://127.0.0.1:8420/health")); // undefined
 * ```
 * @param request The request.
 * @returns The error to answer, or undefined.
 */
export function hostProblem(request: Request): FrameworkError | undefined {
  const host = request.headers.get("host");
  if (host === null) return undefined;
  const url = request.url;
  // A client sends the same Host on every request: once its URL parsed, a URL with the same start
  // (scheme and authority, then the path, which cannot fail to parse) is not parsed again.
  if (host === wellFormed.host && url.startsWith(wellFormed.start)) return undefined;
  const m = HOST.exec(host);
  const port = m?.[1] === undefined ? 0 : Number(m[1]);
  let parsed = false;
  if (m && port <= 65535) {
    try {
      parsed = new URL(url).host !== "";
    } catch {
      parsed = false;
    }
  }
  if (parsed) {
    const path = pathStart(url);
    if (path > 0) wellFormed = { host, start: url.slice(0, path + 1) };
    return undefined;
  }
  return badInput(
    "Malformed Host header: send the server's host name or address, with an optional port (e.g. 127.0.0.1:8420)",
  );
}

/**
 * Wraps a request handler so that a malformed `Host` header is answered with 400 before the handler
 * sees the request.
 *
 * @example
 * ```ts
 * const app = (_request: Request) => Response.json({ ok: true, data: {} });
 * Deno.serve(withCheckedHost(app));
 * ```
 * @param handler The server's handler.
 * @returns The guarded handler.
 */
export function withCheckedHost(
  handler: (request: Request) => Response | Promise<Response>,
): (request: Request) => Response | Promise<Response> {
  const refuse = async (request: Request, problem: FrameworkError) => {
    await request.body?.cancel().catch(() => {});
    return errorResponse(problem);
  };
  // A synchronous answer of the handler stays synchronous (Deno.serve sends it without a promise).
  return (request) => {
    const problem = hostProblem(request);
    return problem ? refuse(request, problem) : handler(request);
  };
}
