/**
 * Compressing what a server sends when the client accepts it: gzip through the platform's
 * compression stream, with `Content-Encoding` and `Vary` set. Fixed assets are compressed once.
 *
 * @module
 */

/**
 * Whether a request accepts gzip.
 *
 * @param request The request.
 * @returns True when `Accept-Encoding` lists gzip (not with q=0).
 */
export function acceptsGzip(request: Request): boolean {
  const header = request.headers.get("accept-encoding") ?? "";
  return header.split(",").some((part) => {
    const [name, ...params] = part.trim().toLowerCase().split(";");
    if (name !== "gzip" && name !== "*") return false;
    return !params.some((p) => /^\s*q=0(\.0*)?\s*$/.test(p));
  });
}

/**
 * Gzips a text.
 *
 * @param text The text.
 * @returns The compressed bytes.
 */
export async function gzip(text: string): Promise<Uint8Array> {
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/**
 * A response with a text body, gzipped when the request accepts it (bodies under 1 KiB are sent as
 * they are: compressing them gains nothing).
 *
 * @param request The request.
 * @param text The body.
 * @param init Status and headers.
 * @param compressed The body already gzipped (fixed assets), if at hand.
 * @returns The response.
 */
export async function textResponse(
  request: Request,
  text: string,
  init: ResponseInit & { headers: Record<string, string> },
  compressed?: Uint8Array,
): Promise<Response> {
  if (text.length < 1024 || !acceptsGzip(request)) {
    return new Response(text, { ...init, headers: { ...init.headers, vary: "Accept-Encoding" } });
  }
  return new Response((compressed ?? await gzip(text)) as BodyInit, {
    ...init,
    headers: { ...init.headers, "content-encoding": "gzip", vary: "Accept-Encoding" },
  });
}
