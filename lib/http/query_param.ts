/**
 * A request's query parameters, read without parsing its URL when it has no query (the answers given
 * before the router read one or two of them on every request).
 *
 * @module
 */

/**
 * A query parameter of the request, percent-decoded.
 *
 * @example
 * ```ts
 * queryParam(new Request("http://h/run?stream=true"), "stream"); // "true"
 * queryParam(new Request("http://h/run"), "stream"); // null
 * ```
 * @param request The request.
 * @param name The parameter.
 * @returns Its first value, or null when it is absent.
 */
export function queryParam(request: Request, name: string): string | null {
  return request.url.includes("?") ? new URL(request.url).searchParams.get(name) : null;
}
